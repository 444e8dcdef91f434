"""Writes a snapshot's data again with no shared objects (a JSON round trip, tuples
becoming lists), so that serde-pickle, which refuses the memo references of real
snapshots ("recursive structure found"), can be timed on the same data.
Usage: python3 bench/pickle/unshare.py IN.pickle OUT.pickle"""
import json
import pickle
import sys

with open(sys.argv[1], "rb") as f:
    data = json.loads(json.dumps(pickle.load(f)))
with open(sys.argv[2], "wb") as f:
    pickle.dump(data, f, protocol=4)
