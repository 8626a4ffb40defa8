"""The local rendezvous: TensorFlow's key format, send/recv, abort and cancellation."""

from __future__ import annotations

import threading
import time

import pytest

from tfx.core.cancellation import CancellationFlag
from tfx.core.errors import (
    CancelledError,
    DeadlineExceededError,
    InternalError,
    InvalidArgumentError,
    NotFoundError,
)
from tfx.core.executor import StepState
from tfx.core.rendezvous import (
    LocalRendezvous,
    child_frame_id,
    create_key,
    hash64,
    parse_key,
)
from tfx.kernels.base import DEAD

SRC = "/job:localhost/replica:0/task:0/device:CPU:0"
DST = "/job:localhost/replica:0/task:0/device:CPU:1"


def test_key_format() -> None:
    key = create_key(SRC, 0xABC, DST, "edge_7_x", 3, 4)
    assert key == f"{SRC};0000000000000abc;{DST};edge_7_x;3:4"
    parsed = parse_key(key)
    assert (parsed.src_device, parsed.src_incarnation, parsed.dst_device, parsed.tensor_name,
            parsed.frame_id, parsed.iter_id) == (SRC, 0xABC, DST, "edge_7_x", 3, 4)
    assert create_key(SRC, 1, DST, "t").endswith(";t;0:0")
    with pytest.raises(InvalidArgumentError, match="expected 5 ';' fields"):
        parse_key("a;b")
    with pytest.raises(InvalidArgumentError, match="invalid rendezvous key"):
        parse_key(f"{SRC};zz;{DST};t;0:0")


def test_frame_ids_are_tensorflows() -> None:
    # The frame ids in the keys TensorFlow 2.21's workers sent and asked a tfx worker for,
    # for a while loop "outer" whose body runs a loop "outer/body/_1/inner_0": each loop
    # split across the two tasks, so both halves must number frames alike.
    outer = child_frame_id(0, 0, "outer")
    assert outer == 15760626509582709433
    assert [child_frame_id(outer, i, "outer/body/_1/inner_0") for i in range(3)] == [
        3222728511910736644, 3222728511910737671, 3222728511910738690]
    assert child_frame_id(0, 0, "while") == 6315961604705615773
    # Hash64's tail bytes (a name of 8k+1..8k+7 bytes) and whole 8-byte words both count.
    assert len({hash64(b"frame_%02d" % i) for i in range(100)}) == 100
    assert hash64(b"abcdefgh") != hash64(b"abcdefgi")


def test_send_never_blocks_and_recv_waits() -> None:
    rendezvous = LocalRendezvous()
    rendezvous.send("early", 1)
    assert rendezvous.pending_keys() == ["early"]
    assert rendezvous.recv("early") == 1
    with pytest.raises(InternalError, match="duplicated send of rendezvous key 'early'"):
        rendezvous.send("early", 2)

    got: list = []
    waiter = threading.Thread(target=lambda: got.append(rendezvous.recv("late", timeout=5)))
    waiter.start()
    time.sleep(0.05)
    assert waiter.is_alive()
    rendezvous.send("late", 42)
    waiter.join(5)
    assert got == [42]

    called: list = []
    rendezvous.recv_async("async", lambda value, error: called.append((value, error)))
    assert called == []
    rendezvous.send("async", "v")
    assert called == [("v", None)]


def test_recv_deadline_and_step_cancellation() -> None:
    rendezvous = LocalRendezvous()
    with pytest.raises(DeadlineExceededError, match="timed out receiving 'never'"):
        rendezvous.recv("never", timeout=0.05)
    step = StepState()
    threading.Timer(0.05, step.cancelled.set).start()
    with pytest.raises(CancelledError):
        rendezvous.recv("never", step)


def test_abort_reaches_waiting_and_later_receivers_and_senders() -> None:
    rendezvous = LocalRendezvous()
    errors: list = []

    def wait() -> None:
        try:
            rendezvous.recv("k")
        except CancelledError as exc:
            errors.append(exc)

    waiter = threading.Thread(target=wait)
    waiter.start()
    called: list = []
    rendezvous.recv_async("other", lambda value, error: called.append(error))
    rendezvous.abort(CancelledError("partition on CPU:1 failed"))
    rendezvous.abort(CancelledError("second abort is ignored"))
    waiter.join(5)
    assert [str(e) for e in errors] == ["partition on CPU:1 failed"]
    assert [str(e) for e in called] == ["partition on CPU:1 failed"]
    assert rendezvous.aborted
    with pytest.raises(CancelledError, match="CPU:1 failed"):
        rendezvous.send("k2", 1)
    with pytest.raises(CancelledError, match="CPU:1 failed"):
        rendezvous.recv("k3")


def test_a_dead_value_passes_like_any_other() -> None:
    rendezvous = LocalRendezvous()
    key = create_key(SRC, 1, DST, "edge_1_x", child_frame_id(0, 0, "while"), 3)
    rendezvous.send(key, DEAD)
    assert rendezvous.recv(key) is DEAD


def test_take_returns_what_arrived_without_waiting() -> None:
    # The client takes its fetches this way once every partition has finished.
    rendezvous = LocalRendezvous()
    key = create_key(SRC, 1, SRC, "y:0")
    rendezvous.send(key, 3.0)
    rendezvous.send("other", 1)
    assert rendezvous.take(key) == 3.0
    start = time.monotonic()
    with pytest.raises(NotFoundError, match=r"nothing was sent under rendezvous key "
                                            r"'.*;y:0;0:0'; keys waiting: other"):
        rendezvous.take(key)  # taken already
    assert time.monotonic() - start < 0.05
    rendezvous.abort(CancelledError("step cancelled"))
    with pytest.raises(CancelledError, match="step cancelled"):
        rendezvous.take("other")


def test_an_asynchronous_receive_ends_with_its_step() -> None:
    rendezvous = LocalRendezvous()
    step = StepState()
    called: list = []
    rendezvous.recv_async("k", lambda value, error: called.append((value, error)), step)
    rendezvous.recv_async("answered", lambda value, error: called.append((value, error)),
                          step)
    rendezvous.send("answered", 1.0)
    assert called == [(1.0, None)]
    step.cancelled.set()
    assert len(called) == 2 and isinstance(called[1][1], CancelledError)
    rendezvous.send("k", 2.0)  # too late: the wait was taken back, and answered once
    assert len(called) == 2 and rendezvous.pending_keys() == ["k"]
    # A step cancelled already answers at once.
    rendezvous.recv_async("j", lambda value, error: called.append((value, error)), step)
    assert len(called) == 3 and isinstance(called[2][1], CancelledError)
    assert not rendezvous._waiters


def test_a_cancellation_flag_runs_each_callback_once() -> None:
    flag = CancellationFlag()
    ran: list = []
    first = flag.add_callback(lambda: ran.append(1))
    second = flag.add_callback(lambda: ran.append(2))
    flag.remove_callback(second)
    flag.set()
    flag.set()
    assert ran == [1] and flag.is_set() and first is not None
    assert flag.add_callback(lambda: ran.append(3)) is None and ran == [1]
