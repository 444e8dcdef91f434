// The examples the page offers. The committed ones are always there; the corpus
// copies under www/gallery/ exist when ./build.sh found ../shared/corpus. The Learn
// view's exercises open by id like them.

import { EXERCISES } from './teach-exercises.js';

export const GALLERY = [
  { id: 'transformer', title: 'Transformer layer', about: 'graph · 8 tensors', url: 'examples/transformer_layer.json' },
  { id: 'npu-tiny', title: 'NPU tiny matmul', about: 'NPU · 30 nodes', url: 'examples/npu_tiny_matmul.json' },
  { id: 'flash-attention', title: 'FlashAttention', about: 'NPU · 1,716 nodes', url: 'www/gallery/FlashAttention_Case0.json' },
  { id: 'squeezenet', title: 'SqueezeNet', about: 'model graph · 159 tensors', url: 'www/gallery/light_squeezenet.json' },
  { id: 'minimalloc-a', title: 'MiniMalloc A', about: 'MiniMalloc · 154 buffers', url: 'www/gallery/A.1048576.csv' },
];

/** The first entry, loaded when the page opens without a source. */
export const FIRST = GALLERY[0].id;

/** The gallery entry or exercise with id `id`, or null. */
export function example(id) {
  return GALLERY.find((e) => e.id === id) ?? EXERCISES.find((e) => e.id === id) ?? null;
}
