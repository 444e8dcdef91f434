//! The typed indices of the models: a `u32` newtype per kind of thing (a tensor,
//! an op; in `memplan-npu` a node, buffer or level), so that one is never used
//! for another, made by one macro.

/// Defines `pub struct $name(pub u32)`, an index newtype with `new` and `index`.
#[macro_export]
macro_rules! define_id {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize)]
        #[serde(transparent)]
        pub struct $name(pub u32);

        impl $name {
            /// The id of index `index`, which must fit in a `u32`.
            pub fn new(index: usize) -> $name {
                debug_assert!(u32::try_from(index).is_ok());
                $name(index as u32)
            }

            pub fn index(self) -> usize {
                self.0 as usize
            }
        }

        impl $crate::id::Index for $name {
            fn index(self) -> usize {
                self.0 as usize
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                self.0.fmt(f)
            }
        }
    };
}

/// A node number a dependency list can hold: a plain `u32` or a typed id.
pub trait Index: Copy + Ord {
    fn index(self) -> usize;
}

impl Index for u32 {
    fn index(self) -> usize {
        self as usize
    }
}
