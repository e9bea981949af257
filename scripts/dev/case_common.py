"""case_common.py — what the population scripts (op_population.py, zoo_sweep.py) share: an
exception's first line for a summary table, and a model output's tensors in order."""


def first_line(e):
    """'TypeError: message' on one line, at most 300 characters (the type alone when no message)."""
    s = "%s: %s" % (type(e).__name__, e)
    return s.strip().splitlines()[0][:300] if s.strip() else type(e).__name__


def flat_tensors(o, torch, strict):
    """The tensors of a (nested) output in order: tuples and lists, and — unless strict — dicts and
    ModelOutput-like objects (to_tuple), other leaves skipped. Strict: None when a leaf is not a
    tensor (an OpInfo sample whose output ONNX cannot hold)."""
    if isinstance(o, torch.Tensor):
        return [o]
    if isinstance(o, (list, tuple)):
        r = []
        for e in o:
            f = flat_tensors(e, torch, strict)
            if f is None:
                return None
            r += f
        return r
    if strict:
        return None
    if isinstance(o, dict):
        return [x for e in o.values() for x in flat_tensors(e, torch, strict)]
    if hasattr(o, "to_tuple"):
        return flat_tensors(o.to_tuple(), torch, strict)
    return []
