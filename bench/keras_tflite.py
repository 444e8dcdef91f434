"""Keras models converted to TFLite by TensorFlow's converter (float, with dynamic range
quantisation, and full int8), then every tensor's bytes as memplan imports it against
the TFLite interpreter's after it ran, at batch 1 (the stored placeholders) and 3.
usage: keras_tflite.py MEMPLAN OUT_DIR   (needs tensorflow; bench/keras_tflite.sh)"""
import json
import os
import subprocess
import sys

import numpy as np

os.environ.setdefault('TF_CPP_MIN_LOG_LEVEL', '3')
import tensorflow as tf  # noqa: E402
from tensorflow import keras  # noqa: E402

L = keras.layers


def transformer():
    x = keras.Input((None, 64))
    h = L.LayerNormalization()(x + L.MultiHeadAttention(4, 16)(x, x))
    f = L.Dense(64)(L.Dense(128, activation='gelu')(h))
    return keras.Model(x, L.GlobalAveragePooling1D()(L.LayerNormalization()(h + f)))


def lstm():
    x = keras.Input((50, 40), batch_size=1)  # the converter needs a static batch here
    return keras.Model(x, L.Dense(10)(L.LSTM(32)(L.LSTM(64, return_sequences=True)(x))))


def unet():
    x = keras.Input((64, 64, 3))
    a = L.Conv2D(16, 3, padding='same', activation='relu')(x)
    b = L.Conv2D(32, 3, padding='same', activation='relu')(L.MaxPooling2D()(a))
    c = L.Concatenate()([L.UpSampling2D()(b), a])
    return keras.Model(x, L.Conv2D(2, 1, activation='softmax')(c))


def conv1d():
    x = keras.Input((16000, 1))
    h = L.MaxPooling1D(4)(L.Conv1D(16, 80, strides=4, activation='relu')(x))
    h = L.GlobalMaxPooling1D()(L.Conv1D(32, 3, activation='relu')(h))
    return keras.Model(x, L.Dense(12)(h))


APPS = keras.applications
MODELS = {
    'mobilenet_v3s': lambda: APPS.MobileNetV3Small(weights=None, input_shape=(224, 224, 3)),
    'efficientnet_b0': lambda: APPS.EfficientNetB0(weights=None),
    'resnet50': lambda: APPS.ResNet50(weights=None),
    'densenet121': lambda: APPS.DenseNet121(weights=None),
    'convnext_tiny': lambda: APPS.ConvNeXtTiny(weights=None),
    'inception_v3': lambda: APPS.InceptionV3(weights=None),
    'transformer': transformer, 'lstm': lstm, 'unet': unet, 'conv1d': conv1d,
}


def convert(out):
    files = []
    for name, make in MODELS.items():
        model = make()
        # random samples for the int8 calibration (a free length of 8)
        shape = [1] + [8 if d is None else d for d in model.inputs[0].shape[1:]]

        def samples():
            for _ in range(4):
                yield [np.random.rand(*shape).astype(np.float32)]

        # TensorFlow's converter crashes (a segfault) on the LSTM in int8
        for suffix in ('', '.dynq') if name == 'lstm' else ('', '.dynq', '.int8'):
            path = os.path.join(out, f'{name}{suffix}.tflite')
            if not os.path.exists(path):
                converter = tf.lite.TFLiteConverter.from_keras_model(model)
                if suffix:
                    converter.optimizations = [tf.lite.Optimize.DEFAULT]
                if suffix == '.int8':
                    converter.representative_dataset = samples
                    converter.target_spec.supported_ops = [tf.lite.OpsSet.TFLITE_BUILTINS_INT8]
                    converter.inference_input_type = tf.int8
                    converter.inference_output_type = tf.int8
                try:
                    data = converter.convert()
                except Exception as e:  # the converter's own limits (an LSTM in int8)
                    print(f'{name}{suffix}: the converter fails: {str(e)[:100]}')
                    continue
                with open(path, 'wb') as f:
                    f.write(data)
            files.append(path)
    return files


def compare(memplan, path, value):
    """(tensors compared, those that differ), or None when nothing is dynamic."""
    interpreter = tf.lite.Interpreter(model_path=path)
    dims = []
    for d in interpreter.get_input_details():
        signature = list(d['shape_signature'])
        if -1 in signature:
            interpreter.resize_tensor_input(d['index'], [value if s == -1 else s for s in signature])
            dims += [f"{d['name']}:{a}={value}" for a, s in enumerate(signature) if s == -1]
    if value != 1 and not dims:
        return None
    interpreter.allocate_tensors()
    for d in interpreter.get_input_details():
        interpreter.set_tensor(d['index'], np.asarray(np.random.rand(*d['shape'])).astype(d['dtype']))
    interpreter.invoke()
    args = [memplan, 'export', path, '--out', '-'] + [a for d in dims for a in ('--dim', d)]
    run = subprocess.run(args, capture_output=True, text=True)
    if run.returncode:
        return 0, [('memplan fails', run.stderr.strip()[-120:])]
    sizes = {t['name']: t['size'] for t in json.loads(run.stdout)['tensors']}
    compared, differ = 0, []
    for t in interpreter.get_tensor_details():
        if t['name'] not in sizes:
            continue
        try:
            interpreter.get_tensor(t['index'])
        except ValueError:  # freed or never allocated
            continue
        want = int(np.prod(t['shape'])) * np.dtype(t['dtype']).itemsize
        compared += 1
        if sizes[t['name']] != want:
            differ.append((t['name'], sizes[t['name']], want))
    return compared, differ


def main(memplan, out):
    os.makedirs(out, exist_ok=True)
    agree = total = 0
    for path in convert(out):
        for value in (1, 3):
            result = compare(memplan, path, value)
            if result is None:
                continue
            compared, differ = result
            total += 1
            agree += not differ
            print(f'{os.path.basename(path):30} batch {value}: {compared:4} tensors, {len(differ)} differ {differ[:2]}')
    print(f'{agree} of {total}: every tensor\'s bytes as the TFLite interpreter allocates them')


if __name__ == '__main__':
    main(sys.argv[1], sys.argv[2])
