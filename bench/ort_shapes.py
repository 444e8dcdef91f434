"""Every main-graph value's shape as memplan infers it, against onnxruntime's run of
the model at the input shapes memplan chose (free dims defaulted or raised).
usage: ort_shapes.py MEMPLAN MODEL.onnx...   (needs onnx, onnxruntime, numpy)"""
import json
import subprocess
import sys

import numpy as np
import onnx
import onnxruntime as ort

DTYPES = {'float32': np.float32, 'float16': np.float16, 'float64': np.float64, 'int64': np.int64,
          'int32': np.int32, 'int8': np.int8, 'uint8': np.uint8, 'bool': np.bool_}


def main(memplan, models):
    agree = 0
    for path in models:
        name = path.split('/')[-1]
        out = subprocess.run([memplan, 'shapes', path, '--json', '-'], capture_output=True, text=True)
        if out.returncode:
            print(f'{name:40} memplan fails: {out.stderr.strip()[-160:]}')
            continue
        values = {v['name']: v for v in json.loads(out.stdout)['values']}
        model = onnx.load(path)
        weights = {t.name for t in model.graph.initializer}
        feeds = {}
        for i in model.graph.input:
            if i.name in weights:
                continue
            v = values[i.name]
            dtype = DTYPES.get(v['dtype'], np.float32)
            # floats at random; integers 0 (indices stay in range); a rank-0 integer
            # input is most often a sample rate
            if np.issubdtype(dtype, np.floating):
                feeds[i.name] = np.random.rand(*v['dims']).astype(dtype)
            elif not v['dims'] and np.issubdtype(dtype, np.integer):
                feeds[i.name] = np.array(16000, dtype=dtype)
            else:
                feeds[i.name] = np.zeros(v['dims'], dtype=dtype)
        # every node output of the main graph becomes a graph output
        shown = {o.name for o in model.graph.output}
        for node in model.graph.node:
            for o in node.output:
                if o and o not in shown and o in values:
                    model.graph.output.append(onnx.ValueInfoProto(name=o))
                    shown.add(o)
        options = ort.SessionOptions()
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
        options.log_severity_level = 4
        try:
            session = ort.InferenceSession(model.SerializeToString(), options, providers=['CPUExecutionProvider'])
            names = [o.name for o in session.get_outputs()]
            results = session.run(names, feeds)
        except Exception as e:  # the runtime refuses the shapes memplan chose
            print(f'{name:40} onnxruntime fails: {str(e)[-160:]}')
            continue
        differ = [(n, values[n]['dims'], list(r.shape)) for n, r in zip(names, results)
                  if hasattr(r, 'shape') and list(r.shape) != values[n]['dims']]
        agree += not differ
        print(f'{name:40} {len(names):5} values, {len(differ)} differ {differ[:3]}')
    print(f'{agree} of {len(models)} models: every value\'s shape as onnxruntime runs it')


if __name__ == '__main__':
    main(sys.argv[1], sys.argv[2:])
