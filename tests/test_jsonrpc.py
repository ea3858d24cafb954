"""The JSON-RPC framing `promptc serve` uses, in process: ids of every kind, notifications, a
method that fails by mistake, lines that must not count as requests, output that stays one valid
UTF-8 line, a reader that went away, and `inline` work ordered with the lines around it."""

from __future__ import annotations

import io
import json
import threading
from typing import Any

import pytest

from promptc._cli.jsonrpc import (INTERNAL_ERROR, INVALID_PARAMS, Job, LineWriter, RpcError,
                                  RpcRequest, serve_lines)


def run(lines: list[bytes], handle: Any, workers: int = 2) -> tuple[list[dict[str, Any]],
                                                                    list[str]]:
    out = io.BytesIO()
    logs: list[str] = []
    serve_lines(lines, LineWriter(out), handle, workers=workers, log=logs.append)
    raw = out.getvalue()
    assert raw == b"" or raw.endswith(b"\n")
    return [json.loads(line) for line in raw.decode("utf-8").splitlines()], logs


def line(**message: Any) -> bytes:
    return json.dumps({"jsonrpc": "2.0", **message}).encode("utf-8")


def echo(request: RpcRequest) -> Job:
    return Job(lambda: {"method": request.method, "params": request.params})


def test_every_kind_of_id_is_answered_with_itself() -> None:
    ids: list[Any] = ["a", 7, 2.5, None]
    answers, _ = run([line(id=i, method="m") for i in ids], echo)
    assert sorted(map(json.dumps, (a["id"] for a in answers))) == sorted(map(json.dumps, ids))
    assert all(a["result"] == {"method": "m", "params": {}} for a in answers)


def test_notifications_run_but_are_never_answered() -> None:
    ran = threading.Event()

    def handle(request: RpcRequest) -> Job:
        def work() -> Any:
            ran.set()
            raise RpcError(-32000, "no good")
        return Job(work)
    answers, logs = run([line(method="note")], handle)
    assert answers == [] and ran.is_set()
    assert logs == ["notification 'note' failed: no good"]


@pytest.mark.parametrize("raw", [
    b'{"jsonrpc":"2.0","method":"version","params":[1]}',  # by position: refused, not answered
    b'{"jsonrpc":"2.0","method":"version","params":[]}',
])
def test_a_notification_the_server_refuses_is_logged_never_answered(raw: bytes) -> None:
    answers, logs = run([raw, line(id=1, method="m")], echo)  # (issue 33, H13)
    assert [a["id"] for a in answers] == [1]
    assert len(logs) == 1 and "notification" in logs[0] and "by name" in logs[0]


def test_a_line_that_is_no_request_is_answered_even_without_an_id() -> None:
    # not a notification: without `jsonrpc` or `method` it is no request at all (id null)
    for raw in (b'{"method":"m"}', b'{"jsonrpc":"2.0","method":1,"params":"bar"}'):
        [answer], _ = run([raw], echo)
        assert answer["id"] is None and answer["error"]["code"] == -32600


def test_a_failing_method_is_an_internal_error_and_the_next_request_is_answered() -> None:
    def handle(request: RpcRequest) -> Job:
        if request.method == "bad":
            return Job(lambda: {}["missing"])
        return echo(request)
    answers, logs = run([line(id=1, method="bad"), line(id=2, method="good")], handle)
    by_id = {a["id"]: a for a in answers}
    assert by_id[1]["error"]["code"] == INTERNAL_ERROR
    assert "KeyError" in by_id[1]["error"]["message"] and "result" in by_id[2]
    assert len(logs) == 1 and "internal error in 'bad'" in logs[0]


def test_a_handler_error_is_the_answer() -> None:
    def handle(request: RpcRequest) -> Job:
        raise RpcError(INVALID_PARAMS, "bad params", {"field": "x"})
    answers, _ = run([line(id=1, method="m")], handle)
    assert answers == [{"jsonrpc": "2.0", "id": 1,
                        "error": {"code": INVALID_PARAMS, "message": "bad params",
                                  "data": {"field": "x"}}}]


@pytest.mark.parametrize("raw, code, answer_id", [
    (b"", None, None), (b"   \r\n", None, None),  # blank: not a request, not answered
    (b'{"jsonrpc":"2.0","id":1,"method":"m"}\r\n', None, 1),
    (b"\xff\xfe", -32700, None),  # not UTF-8
    (b'{"jsonrpc":"2.0","id":1,"method":"m","params":{"x":NaN}}', -32700, None),
    (b"[" * 100_000, -32700, None),  # deeper than the parser goes
    (b'{"jsonrpc":"2.0","id":true,"method":"m"}', -32600, None),
    (b'{"jsonrpc":"2.0","id":5,"method":"m","params":[1]}', -32602, 5),
    (b'{"jsonrpc":"2.0","id":6,"method":"m","params":"x"}', -32600, 6),
    (b'{"id":7,"method":"m"}', -32600, 7),
])
def test_what_a_line_must_be(raw: bytes, code: int | None, answer_id: Any) -> None:
    answers, _ = run([raw], echo)
    if code is None and answer_id is None:
        assert answers == []
        return
    [answer] = answers
    assert answer["id"] == answer_id
    if code is None:
        assert "result" in answer
    else:
        assert answer["error"]["code"] == code


def test_a_lone_surrogate_still_makes_one_valid_utf8_line() -> None:
    answers, _ = run([b'{"jsonrpc":"2.0","id":1,"method":"m","params":{"t":"a\\ud800\\u00e9"}}'],
                     echo)
    assert answers[0]["result"]["params"]["t"] == "a\ud800é"


def test_a_reader_that_went_away_does_not_stop_the_server() -> None:
    class Gone(io.BytesIO):
        def write(self, data: Any) -> int:
            raise BrokenPipeError

    writer = LineWriter(Gone())
    done: list[int] = []

    def handle(request: RpcRequest) -> Job:
        return Job(lambda: done.append(1))
    serve_lines([line(id=i, method="m") for i in range(5)], writer, handle, log=print)
    assert writer.closed and len(done) == 5


def test_inline_work_is_ordered_with_the_lines_around_it() -> None:
    state = {"generation": 0}

    def handle(request: RpcRequest) -> Job:
        if request.method == "bump":
            return Job(lambda: state.update(generation=state["generation"] + 1), inline=True)
        seen = state["generation"]  # read when the line is read, as serve reads its Compiler
        return Job(lambda: seen)
    lines = [line(id=f"a{i}", method="get") for i in range(20)] + [line(id="b", method="bump")] \
        + [line(id=f"c{i}", method="get") for i in range(20)]
    answers, _ = run(lines, handle, workers=4)
    results = {a["id"]: a["result"] for a in answers}
    assert {results[f"a{i}"] for i in range(20)} == {0}
    assert {results[f"c{i}"] for i in range(20)} == {1}
