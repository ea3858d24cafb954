"""The bounded memo every cache is made of: oldest out first, and, for pieces most sessions
never bring back, kept only from their second time."""

from __future__ import annotations

from promptc._base.memo import Memo


def test_a_full_memo_drops_its_oldest_entry() -> None:
    memo: Memo[str, int] = Memo(2)
    memo.put("a", 1)
    memo.put("b", 2)
    memo.put("a", 10)  # a key already in: replaced, nothing dropped
    memo.put("c", 3)
    assert (memo.get("a"), memo.get("b"), memo.get("c"), len(memo)) == (None, 2, 3, 2)


def test_second_sight_keeps_a_value_from_its_keys_second_time() -> None:
    memo: Memo[tuple[str, int], str] = Memo(8, second_sight=True)
    assert memo.put(("k", 1), "first") == "first"  # handed back, not kept
    assert memo.get(("k", 1)) is None and len(memo) == 0
    memo.put(("other", 2), "x")
    assert memo.put(("k", 1), "second") == "second"
    assert memo.get(("k", 1)) == "second" and len(memo) == 1
    memo.clear()
    memo.put(("k", 1), "again")  # cleared: the key counts as new
    assert memo.get(("k", 1)) is None


def test_second_sight_remembers_a_bounded_number_of_keys() -> None:
    memo: Memo[int, int] = Memo(2, second_sight=True)
    for key in range(100):
        memo.put(key, key)
    memo.put(0, 0)  # seen long ago: forgotten, so new again
    memo.put(99, 99)  # seen just now: kept
    assert memo.get(0) is None and memo.get(99) == 99
