"""Makes a large PyTorch memory snapshot for the scale benchmark by repeating a real
trace: copy k of the trace has its addresses shifted by k * 2^40 and its times by
k times the trace's duration, and shares the original's frame lists, as a longer
recording would. The result is a valid snapshot of about SIZE_MB megabytes; it is
not committed (write it under /tmp).
Usage: python3 bench/big_snapshot.py SOURCE.pickle OUT.pickle [SIZE_MB (default 1000)]"""
import os
import pickle
import sys

source, out = sys.argv[1], sys.argv[2]
target_mb = float(sys.argv[3]) if len(sys.argv) > 3 else 1000.0
with open(source, "rb") as f:
    snap = pickle.load(f)
traces = snap["device_traces"]
device = max(range(len(traces)), key=lambda i: len(traces[i]))
trace = traces[device]
span = trace[-1]["time_us"] - trace[0]["time_us"] + 1


def repeated(copies):
    longer = []
    for k in range(copies):
        shift, later = k << 40, k * span
        for e in trace:
            e = dict(e)  # the frames list stays the same object: shared in the pickle
            if "addr" in e:
                e["addr"] += shift
            e["time_us"] += later
            longer.append(e)
    return longer


# the bytes a copy adds (its frames are shared, so less than the source's size)
traces[device] = repeated(1)
one = len(pickle.dumps(snap, protocol=4))
traces[device] = repeated(2)
per_copy = len(pickle.dumps(snap, protocol=4)) - one
copies = max(1, round((target_mb * 1e6 - (one - per_copy)) / per_copy))
longer = repeated(copies)
traces[device] = longer
with open(out, "wb") as f:
    pickle.dump(snap, f, protocol=4)
print(f"{out}: {copies} copies of {len(trace)} entries, {len(longer)} entries, {os.path.getsize(out) / 1e6:.0f} MB")
