"""Small real PDFs for tests (and the example case's checklist), written by hand.

One page per list of lines, Helvetica, text drawn with Tj so pypdf extracts it.
"""

from __future__ import annotations


def _escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")


def make_pdf(pages: list[list[str]]) -> bytes:
    objects: list[bytes] = []
    n_pages = len(pages)
    kids = " ".join(f"{3 + 2 * i} 0 R" for i in range(n_pages))
    font_id = 3 + 2 * n_pages
    objects.append(b"<< /Type /Catalog /Pages 2 0 R >>")
    objects.append(f"<< /Type /Pages /Kids [{kids}] /Count {n_pages} >>".encode())
    for i, lines in enumerate(pages):
        content_id = 4 + 2 * i
        objects.append(
            f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents {content_id} 0 R "
            f"/Resources << /Font << /F1 {font_id} 0 R >> >> >>".encode()
        )
        ops = ["BT", "/F1 11 Tf", "14 TL", "56 740 Td"]
        for line in lines:
            ops.append(f"({_escape(line)}) Tj T*")
        ops.append("ET")
        stream = "\n".join(ops).encode("latin-1")
        objects.append(b"<< /Length %d >>\nstream\n" % len(stream) + stream + b"\nendstream")
    objects.append(b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>")
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    for off in offsets:
        out += b"%010d 00000 n \n" % off
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, xref)
    return bytes(out)


CHECKLIST = [
    [
        "Team blog publishing checklist (engineering)",
        "",
        "1. Every statistic from outside the company links to its original source.",
        "2. Internal numbers are cleared by legal before they appear in public.",
        "3. Claims about the company's policy are reviewed by the people team.",
        "4. Posts that touch open policy decisions wait until the decision is announced.",
        "5. A second reader has signed off on the final draft.",
        "",
        "Posts that fail an item go back to the author with the item number.",
    ]
]

if __name__ == "__main__":  # regenerate the example case's PDF
    from pathlib import Path

    target = Path(__file__).resolve().parents[1] / "cases" / "essay-publish" / "publishing-checklist.pdf"
    target.write_bytes(make_pdf(CHECKLIST))
    print(f"wrote {target}")
