"""Payment reconciliation job."""


def reconcile(ledger, bank):
    return [row for row in ledger if row not in bank]
