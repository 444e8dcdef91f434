"""Writes hand-made snapshots of what the corpus does not show, every address and
size worked out by hand from torch's rules (crates/torch/tests/corpus.rs replays
them):

- caught_oom.pickle: a program that catches an out-of-memory error and goes on,
  under a 25 MiB cap: a 20 MiB segment, a 5 MiB block, a 30 MiB request that fails
  (the oom entry), then a 4 MiB block split from the same segment, the 5 MiB block
  freed and allocated again;
- empty_cache.pickle: torch.cuda.empty_cache() twice: a small block freed, its
  2 MiB segment given back, a new one made for the next request; then at the end,
  after the last free, the last segment given back;
- streams.pickle: two streams: a block of stream 1 used on another stream (its
  free completes later than asked), then a request of stream 2, which cannot take
  stream 1's cached segment and gets its own, then stream 1's segment reused;
- missing_free.pickle: a block allocated again at its address with no free between
  (its free lost, as in a trace that wrapped): the replay frees it there.
"""

import pickle
from pathlib import Path

MIB = 1 << 20
BASE = 0x7F0000000000
settings = {
    "PYTORCH_CUDA_ALLOC_CONF": "", "max_split_size": -1, "garbage_collection_threshold": 0.0,
    "expandable_segments": False,
    "roundup_power2_divisions": {str(1 << i): 0 for i in range(16)},
}


def entry(action, addr, size, t, stream=0):
    return {"action": action, "addr": addr, "size": size, "stream": stream, "time_us": t}


def write(name, segments, trace):
    out = Path(__file__).with_name(name)
    out.write_bytes(pickle.dumps({"segments": segments, "device_traces": [trace],
                                  "allocator_settings": settings, "external_annotations": []}))
    print(out)


trace = [
    entry("segment_alloc", BASE, 20 * MIB, 1),
    entry("alloc", BASE, 5 * MIB, 2),
    {"action": "oom", "size": 30 * MIB, "stream": 0, "time_us": 3, "device_free": 100 * MIB},
    entry("alloc", BASE + 5 * MIB, 4 * MIB, 4),
    entry("free_requested", BASE, 5 * MIB, 5),
    entry("free_completed", BASE, 5 * MIB, 6),
    entry("alloc", BASE, 5 * MIB, 7),
]
block = lambda addr, size, state: {"address": addr, "size": size, "requested_size": size, "state": state}
segments = [{
    "device": 0, "address": BASE, "total_size": 20 * MIB, "allocated_size": 9 * MIB,
    "active_size": 9 * MIB, "requested_size": 9 * MIB, "stream": 0, "segment_type": "large",
    "segment_pool_id": (0, 0), "is_expandable": False,
    "blocks": [block(BASE, 5 * MIB, "active_allocated"), block(BASE + 5 * MIB, 4 * MIB, "active_allocated"),
               block(BASE + 9 * MIB, 11 * MIB, "inactive")],
}]
write("caught_oom.pickle", segments, trace)

A, B = BASE + 64 * MIB, BASE + 96 * MIB
trace = [
    entry("segment_alloc", A, 2 * MIB, 1),
    entry("alloc", A, 512, 2),
    entry("free_requested", A, 512, 3),
    entry("free_completed", A, 512, 4),
    entry("segment_free", A, 2 * MIB, 5),   # torch.cuda.empty_cache()
    entry("segment_alloc", B, 2 * MIB, 6),
    entry("alloc", B, 1000, 7),
    entry("free_requested", B, 1000, 8),
    entry("free_completed", B, 1000, 9),
    entry("segment_free", B, 2 * MIB, 10),  # torch.cuda.empty_cache() at the end
]
write("empty_cache.pickle", [], trace)

S1, S2 = BASE + 128 * MIB, BASE + 160 * MIB
trace = [
    entry("segment_alloc", S1, 2 * MIB, 1, stream=1),
    entry("alloc", S1, 512, 2, stream=1),
    entry("free_requested", S1, 512, 3, stream=1),   # used on another stream: not free yet
    entry("free_completed", S1, 512, 5, stream=1),   # its event done, at the next malloc
    entry("segment_alloc", S2, 2 * MIB, 6, stream=2),
    entry("alloc", S2, 512, 7, stream=2),
    entry("alloc", S1, 1024, 8, stream=1),
]
segments = [
    {"device": 0, "address": S1, "total_size": 2 * MIB, "stream": 1, "segment_type": "small",
     "segment_pool_id": (0, 0), "is_expandable": False,
     "blocks": [block(S1, 1024, "active_allocated"), block(S1 + 1024, 2 * MIB - 1024, "inactive")]},
    {"device": 0, "address": S2, "total_size": 2 * MIB, "stream": 2, "segment_type": "small",
     "segment_pool_id": (0, 0), "is_expandable": False,
     "blocks": [block(S2, 512, "active_allocated"), block(S2 + 512, 2 * MIB - 512, "inactive")]},
]
write("streams.pickle", segments, trace)

M = BASE + 192 * MIB
trace = [
    entry("segment_alloc", M, 2 * MIB, 1),
    entry("alloc", M, 512, 2),
    entry("alloc", M, 512, 3),  # the free of the first is not in the trace
    entry("free_requested", M, 512, 4),
    entry("free_completed", M, 512, 5),
]
segments = [{"device": 0, "address": M, "total_size": 2 * MIB, "stream": 0, "segment_type": "small",
             "segment_pool_id": (0, 0), "is_expandable": False, "blocks": [block(M, 2 * MIB, "inactive")]}]
write("missing_free.pickle", segments, trace)
