"""Closing from several threads at once: `take` hands each resource to exactly one caller."""
import threading

_LOCK = threading.Lock()


def take(owner, *names):
    """Sets each attribute `names` of `owner` to None and returns their old values (None for
    a missing one), atomically: of threads closing one object at once, exactly one gets each
    resource to free, and a second close finds nothing left (a no-op)."""
    with _LOCK:
        values = tuple(getattr(owner, name, None) for name in names)
        for name in names:
            setattr(owner, name, None)
    return values
