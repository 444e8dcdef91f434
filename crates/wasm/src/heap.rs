//! The heap of the wasm module: dlmalloc, as the standard library uses on wasm, but
//! taking memory from the browser in steps that grow with the heap.
//!
//! The standard one asks for what each request lacks, rounded up to a 64 KiB page,
//! and every `memory.grow` costs the engine more as the memory grows (V8 in Node:
//! growing to 420 MiB a page at a time takes 1.9 s, an eighth of the memory at a time
//! 4 ms; planning a million tensors there spent about 1.6 s of its 13-14 s growing,
//! while Chromium's worker showed no difference out of its noise). Here each step is
//! at least an eighth of the memory already held, so a heap of any size takes a few
//! dozen steps, and at most an eighth more memory than it needs.

/// Each step takes at least the memory held over this.
const STEP_SHARE: usize = 8;

/// Pages to grow by for a request of `needed` pages when memory holds `held`: at least
/// an eighth of `held`, never less than `needed`.
#[cfg_attr(not(target_arch = "wasm32"), allow(dead_code))]
fn step(needed: usize, held: usize) -> usize {
    needed.max(held / STEP_SHARE)
}

#[cfg(target_arch = "wasm32")]
mod wasm {
    use super::step;
    use core::alloc::{GlobalAlloc, Layout};
    use core::arch::wasm32;
    use core::ptr;
    use dlmalloc::{Allocator, Dlmalloc};

    /// A wasm page.
    const PAGE: usize = 64 * 1024;

    /// The memory under dlmalloc, grown in steps (see the module).
    struct Growing;

    // SAFETY: the regions handed out are fresh pages of the module's memory, never handed
    // out twice; none is given back (as with the standard allocator on wasm).
    unsafe impl Allocator for Growing {
        fn alloc(&self, size: usize) -> (*mut u8, usize, u32) {
            let needed = size.div_ceil(PAGE);
            let held = wasm32::memory_size(0);
            // the larger step, or when the browser refuses it, just what is needed
            for pages in [step(needed, held), needed] {
                let before = wasm32::memory_grow(0, pages);
                if before != usize::MAX {
                    let base = before * PAGE;
                    let size = pages * PAGE;
                    // the last bytes of a 4 GiB memory stay out, so that no pointer
                    // reaches past the address space's end (as the standard one does)
                    let size = if base.wrapping_add(size) == 0 {
                        size - 16
                    } else {
                        size
                    };
                    return (base as *mut u8, size, 0);
                }
            }
            (ptr::null_mut(), 0, 0)
        }

        fn remap(&self, _ptr: *mut u8, _old: usize, _new: usize, _can_move: bool) -> *mut u8 {
            ptr::null_mut()
        }

        fn free_part(&self, _ptr: *mut u8, _old: usize, _new: usize) -> bool {
            false
        }

        fn free(&self, _ptr: *mut u8, _size: usize) -> bool {
            false
        }

        fn can_release_part(&self, _flags: u32) -> bool {
            false
        }

        fn allocates_zeros(&self) -> bool {
            true
        }

        fn page_size(&self) -> usize {
            PAGE
        }
    }

    /// The module's global allocator.
    pub(crate) struct Heap;

    static mut HEAP: Dlmalloc<Growing> = Dlmalloc::new_with_allocator(Growing);

    // SAFETY: the module runs on one thread (it is built without atomics: a page and each
    // worker get instances of their own), so no two calls reach `HEAP` at once, and none
    // of these calls back into the allocator.
    unsafe impl GlobalAlloc for Heap {
        unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
            (*ptr::addr_of_mut!(HEAP)).malloc(layout.size(), layout.align())
        }

        unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
            (*ptr::addr_of_mut!(HEAP)).free(ptr, layout.size(), layout.align())
        }

        unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
            (*ptr::addr_of_mut!(HEAP)).calloc(layout.size(), layout.align())
        }

        unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
            (*ptr::addr_of_mut!(HEAP)).realloc(ptr, layout.size(), layout.align(), new_size)
        }
    }

    #[global_allocator]
    static GLOBAL: Heap = Heap;
}

#[cfg(test)]
mod tests {
    use super::step;

    #[test]
    fn steps_grow_with_the_memory_held_and_cover_the_request() {
        assert_eq!(step(3, 17), 3);
        assert_eq!(step(1, 800), 100);
        assert_eq!(step(300, 800), 300);
        // from the initial memory to 420 MiB in a few dozen steps
        let (mut held, mut steps) = (17, 0);
        while held < 420 * 16 {
            held += step(1, held);
            steps += 1;
        }
        assert!(steps < 60, "{steps} steps");
    }
}
