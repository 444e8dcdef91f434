"""Writes the small models whose sizes depend on the input data, for the tests.

detector.onnx: an SSDlite-like detector (a convolution, box and class heads over
1,536 anchors and 5 classes, boxes decoded against constant anchors), then the
post-processing torchvision exports: NonMaxSuppression with a constant
max_output_boxes_per_class and the kept boxes gathered, the scores over a
threshold (NonZero, their count), TopK with k = min(count, 100) taken from a
shape, and TopK with k = the count itself, a run-time value, whose boxes and
scores make the detections.

detector.runtime.json: the largest shape onnxruntime gives every value of
detector.onnx over a few inputs (random images, scaled, and all ones), so that the
tests can hold memplan's worst cases to at least what a runtime produces.

loop_scan.onnx: a Loop whose trip count is a graph input, with a scan output: no
bound follows from the shapes, so memplan asks for one.

Run with onnx, onnxruntime and numpy installed:
    python tests/data/make_data_dependent.py
"""

import json
import os

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
SIZE, CHANNELS, ANCHORS, CLASSES = 32, 8, 6, 5
CELLS = (SIZE // 2) ** 2
BOXES = CELLS * ANCHORS  # 1536


def const(name, array):
    return numpy_helper.from_array(np.asarray(array), name)


def detector():
    rng = np.random.default_rng(44)
    inits = [
        const("w_stem", rng.normal(0, 0.3, (CHANNELS, 3, 3, 3)).astype(np.float32)),
        const("w_loc", rng.normal(0, 0.1, (ANCHORS * 4, CHANNELS, 1, 1)).astype(np.float32)),
        const("w_cls", rng.normal(0, 0.5, (ANCHORS * CLASSES, CHANNELS, 1, 1)).astype(np.float32)),
        const("anchors", rng.uniform(0, 1, (1, BOXES, 4)).astype(np.float32)),
        const("loc_shape", np.array([1, BOXES, 4], np.int64)),
        const("cls_shape", np.array([1, BOXES, CLASSES], np.int64)),
        const("max_per_class", np.array([20], np.int64)),
        const("iou", np.array([0.5], np.float32)),
        const("score_min", np.array([0.3], np.float32)),
        const("threshold", np.array(0.25, np.float32)),
        const("two", np.array([2], np.int64)),
        const("zero", np.array([0], np.int64)),
        const("one", np.array([1], np.int64)),
        const("most", np.array([100], np.int64)),
        const("boxes_n", np.array([BOXES], np.int64)),
    ]
    node = helper.make_node
    nodes = [
        node("Conv", ["image", "w_stem"], ["stem"], name="stem", strides=[2, 2], pads=[1, 1, 1, 1]),
        node("Relu", ["stem"], ["features"], name="relu"),
        node("Conv", ["features", "w_loc"], ["loc"], name="loc_head"),
        node("Conv", ["features", "w_cls"], ["cls"], name="cls_head"),
        node("Transpose", ["loc"], ["loc_t"], name="loc_t", perm=[0, 2, 3, 1]),
        node("Reshape", ["loc_t", "loc_shape"], ["deltas"], name="deltas"),
        node("Add", ["anchors", "deltas"], ["boxes"], name="decode"),
        node("Transpose", ["cls"], ["cls_t"], name="cls_t", perm=[0, 2, 3, 1]),
        node("Reshape", ["cls_t", "cls_shape"], ["logits"], name="logits"),
        node("Softmax", ["logits"], ["probs"], name="softmax", axis=-1),
        node("Transpose", ["probs"], ["scores"], name="scores", perm=[0, 2, 1]),
        # torchvision's batched NMS: kept [K, 3], their boxes [K, 4]
        node("NonMaxSuppression", ["boxes", "scores", "max_per_class", "iou", "score_min"], ["selected"], name="nms"),
        node("Gather", ["selected", "two"], ["box_index"], name="box_index", axis=1),
        node("Squeeze", ["box_index", "one"], ["box_index_1d"], name="squeeze_index"),
        node("Squeeze", ["boxes", "zero"], ["boxes_2d"], name="squeeze_boxes"),
        node("Gather", ["boxes_2d", "box_index_1d"], ["kept_boxes"], name="kept_boxes", axis=0),
        # the scores over a threshold, and their count
        node("Greater", ["scores", "threshold"], ["over"], name="over"),
        node("NonZero", ["over"], ["over_index"], name="over_index"),
        node("Flatten", ["scores"], ["flat_scores"], name="flat", axis=0),
        node("Squeeze", ["flat_scores", "zero"], ["flat_1d"], name="squeeze_flat"),
        node("Cast", ["over"], ["over_int"], name="count_cast", to=TensorProto.INT64),
        node("ReduceSum", ["over_int"], ["count"], name="count", keepdims=0),
        node("Reshape", ["count", "one"], ["k_count"], name="k_count"),
        # TopK of k = min(kept, 100), k from the kept boxes' shape
        node("Shape", ["kept_boxes"], ["kept_shape"], name="kept_shape"),
        node("Gather", ["kept_shape", "zero"], ["kept_n"], name="kept_n", axis=0),
        node("Min", ["kept_n", "most"], ["k_top"], name="k_top"),
        node("Gather", ["flat_1d", "box_index_1d"], ["kept_scores"], name="kept_scores", axis=0),
        node("TopK", ["kept_scores", "k_top"], ["top_scores", "top_index"], name="top"),
        # TopK of k = the count over the threshold, a run-time value
        node("TopK", ["flat_1d", "k_count"], ["over_scores", "over_order"], name="top_over"),
        # their boxes and scores as detections [K, 5], and the indices over the threshold
        node("Mod", ["over_order", "boxes_n"], ["over_box"], name="over_box"),
        node("Gather", ["boxes_2d", "over_box"], ["over_boxes"], name="over_boxes", axis=0),
        node("Unsqueeze", ["over_scores", "one"], ["over_scores_2d"], name="over_scores_2d"),
        node("Concat", ["over_boxes", "over_scores_2d"], ["detections"], name="detections", axis=1),
        node("Transpose", ["over_index"], ["over_where"], name="over_where"),
    ]
    outputs = ["kept_boxes", "top_scores", "top_index", "detections", "over_where"]
    graph = helper.make_graph(
        nodes,
        "detector",
        [helper.make_tensor_value_info("image", TensorProto.FLOAT, [1, 3, SIZE, SIZE])],
        [helper.make_tensor_value_info(o, TensorProto.UNDEFINED, None) for o in outputs],
        inits,
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], producer_name="make_data_dependent.py")
    model = onnx.shape_inference.infer_shapes(model)
    onnx.checker.check_model(model)
    return model


def runtime_shapes(model):
    """The largest shape of every value over a few inputs, run in onnxruntime."""
    import onnxruntime as ort

    probe = onnx.ModelProto()
    probe.CopyFrom(model)
    names = [o for n in probe.graph.node for o in n.output]
    known = {o.name for o in probe.graph.output}
    for name in names:
        if name not in known:
            probe.graph.output.append(helper.make_empty_tensor_value_info(name))
    session = ort.InferenceSession(probe.SerializeToString(), providers=["CPUExecutionProvider"])
    rng = np.random.default_rng(7)
    images = [rng.normal(0, s, (1, 3, SIZE, SIZE)).astype(np.float32) for s in (0.5, 1, 4, 16)]
    images.append(np.ones((1, 3, SIZE, SIZE), np.float32))
    largest = {}
    for image in images:
        for name, value in zip(names, session.run(names, {"image": image})):
            shape = list(np.asarray(value).shape)
            old = largest.get(name, shape)
            largest[name] = [max(a, b) for a, b in zip(old, shape)]
    return {"runs": len(images), "onnxruntime": ort.__version__, "shapes": largest}


def loop_scan():
    body = helper.make_graph(
        [
            helper.make_node("Identity", ["cond_in"], ["cond_out"]),
            helper.make_node("Add", ["sum_in", "x"], ["sum_out"]),
            helper.make_node("Identity", ["sum_out"], ["scan"]),
        ],
        "body",
        [
            helper.make_tensor_value_info("i", TensorProto.INT64, []),
            helper.make_tensor_value_info("cond_in", TensorProto.BOOL, []),
            helper.make_tensor_value_info("sum_in", TensorProto.FLOAT, [4]),
        ],
        [
            helper.make_tensor_value_info("cond_out", TensorProto.BOOL, []),
            helper.make_tensor_value_info("sum_out", TensorProto.FLOAT, [4]),
            helper.make_tensor_value_info("scan", TensorProto.FLOAT, [4]),
        ],
    )
    graph = helper.make_graph(
        [
            helper.make_node("Constant", [], ["cond"], value=numpy_helper.from_array(np.array(True))),
            helper.make_node("Loop", ["trips", "cond", "x"], ["total", "steps"], name="loop", body=body),
            helper.make_node("Relu", ["steps"], ["y"], name="relu"),
        ],
        "loop_scan",
        [
            helper.make_tensor_value_info("trips", TensorProto.INT64, []),
            helper.make_tensor_value_info("x", TensorProto.FLOAT, [4]),
        ],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["steps", 4])],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], producer_name="make_data_dependent.py")
    onnx.checker.check_model(model)
    return model


def main():
    model = detector()
    onnx.save(model, os.path.join(HERE, "detector.onnx"))
    with open(os.path.join(HERE, "detector.runtime.json"), "w") as f:
        json.dump(runtime_shapes(model), f, indent=1, sort_keys=True)
        f.write("\n")
    onnx.save(loop_scan(), os.path.join(HERE, "loop_scan.onnx"))


if __name__ == "__main__":
    main()
