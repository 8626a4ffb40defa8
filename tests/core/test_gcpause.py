"""paused_gc: the collector is off inside, restored after, whatever happens."""

import gc

import pytest

from tfx.core.gcpause import paused_gc


@pytest.fixture(autouse=True)
def _collector_on():
    gc.enable()
    yield
    gc.enable()


def test_off_inside_and_back_on_after():
    with paused_gc():
        assert not gc.isenabled()
    assert gc.isenabled()


def test_nested_pause_keeps_it_off_until_the_outer_one_ends():
    with paused_gc():
        with paused_gc():
            assert not gc.isenabled()
        assert not gc.isenabled()
    assert gc.isenabled()


def test_restored_when_the_block_raises():
    with pytest.raises(ValueError), paused_gc():
        raise ValueError("boom")
    assert gc.isenabled()


def test_leaves_a_disabled_collector_disabled():
    gc.disable()
    with paused_gc():
        pass
    assert not gc.isenabled()


def test_works_as_a_decorator_each_call():
    seen = []

    @paused_gc()
    def work():
        seen.append(gc.isenabled())

    work()
    work()
    assert seen == [False, False] and gc.isenabled()
