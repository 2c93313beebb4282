"""Parallel slots share the case prefix: a seated request gets the slot holding most of its
prompt, and a copy of another slot's state when that one holds a longer shared prefix."""

from __future__ import annotations

import threading
import time

from courtroom_chat.backends.local_slots import MIN_SHARED, SlotBook, prompt_text, shared_length

CASE = "C" * (MIN_SHARED * 3)


def body(suffix: str, case: str = CASE) -> dict:
    return {"messages": [{"role": "system", "content": "sys"}, {"role": "user", "content": case + suffix}]}


class Book(SlotBook):
    def __init__(self, count: int):
        super().__init__(count)
        self.posts: list[str] = []

    def _post(self, path, data):
        self.posts.append(path)
        return {}


def test_shared_length_counts_the_common_prefix():
    assert shared_length("abcdef", "abcxyz") == 3
    assert shared_length(CASE + "a", CASE + "b") == len(CASE)
    assert shared_length("", "abc") == 0
    assert prompt_text(body("x")).endswith("x")


def test_a_request_sharing_the_prefix_copies_the_slot_that_read_it():
    book = Book(3)
    with book.seat(body(" defense")) as first:
        first.started()
        assert first.slot == 0
    with book.seat(body(" juror 1")) as again:  # slot 0 holds the case: it is reused, no copy
        again.started()
        held = threading.Event()
        release = threading.Event()

        def juror_2():
            with book.seat(body(" juror 2")) as seat:
                seat.started()
                held.set()
                release.wait(5)

        t = threading.Thread(target=juror_2)
        t.start()
        assert held.wait(5)
        assert book.posts == ["/slots/0?action=save", "/slots/1?action=restore"]
        release.set()
        t.join()
    assert again.slot == 0 and book.copies == 1
    book.close()


def test_a_request_waits_for_its_source_to_read_the_prefix_first():
    book = Book(2)
    order: list[str] = []
    seated = threading.Event()

    def juror_1():
        with book.seat(body(" juror 1")) as seat:
            seated.set()
            time.sleep(0.2)  # reading the prompt
            order.append("juror 1 read")
            seat.started()
            time.sleep(0.1)

    t = threading.Thread(target=juror_1)
    t.start()
    assert seated.wait(5)
    with book.seat(body(" juror 2")) as seat:
        order.append("juror 2 seated")
        assert seat.slot == 1
    t.join()
    assert order == ["juror 1 read", "juror 2 seated"]
    assert book.posts == ["/slots/0?action=save", "/slots/1?action=restore"]
    book.close()


def test_an_unrelated_prompt_is_not_copied():
    book = Book(2)
    with book.seat(body(" a")) as seat:
        seat.started()
        with book.seat(body(" b", case="D" * 10)) as other:
            other.started()
    assert book.posts == [] and book.copies == 0
    book.close()


def test_a_request_that_fails_before_its_first_token_frees_its_waiters():
    book = Book(2)
    try:
        with book.seat(body(" broken")):
            raise RuntimeError("the server refused it")
    except RuntimeError:
        pass
    assert all(s.read.is_set() and not s.busy for s in book.slots)
    with book.seat(body(" next")) as seat:  # no wait: the failed slot's state counts as empty
        assert seat.slot in (0, 1)
    book.close()
