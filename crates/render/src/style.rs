//! The charts' colours: ink, grid, the peak and lower-bound lines, the palette
//! of pools and buffers, and the spill marks, shared by every chart.

use plotters::style::RGBColor;

pub const INK: RGBColor = RGBColor(55, 65, 81);
pub const GRID: RGBColor = RGBColor(229, 231, 235);
pub const PEAK: RGBColor = RGBColor(190, 40, 50);
pub const BOUND: RGBColor = RGBColor(20, 130, 90);

/// Pool colours, repeated when there are more pools.
pub const PALETTE: [RGBColor; 10] = [
    RGBColor(78, 121, 167),
    RGBColor(242, 142, 43),
    RGBColor(89, 161, 79),
    RGBColor(225, 87, 89),
    RGBColor(118, 183, 178),
    RGBColor(237, 201, 72),
    RGBColor(176, 122, 161),
    RGBColor(255, 157, 167),
    RGBColor(156, 117, 95),
    RGBColor(186, 176, 172),
];

pub fn pool_colour(pool: u32) -> RGBColor {
    PALETTE[pool as usize % PALETTE.len()]
}

/// Palette entry `k` (pools and other keys cycle through it) as `#rrggbb`.
pub fn palette_hex(k: u32) -> String {
    let RGBColor(r, g, b) = pool_colour(k);
    format!("#{r:02x}{g:02x}{b:02x}")
}

/// Spill edges on a level chart and bars of the spill timeline.
pub const SPILL: RGBColor = RGBColor(190, 40, 50);

/// The colour of NPU buffer `id`, the same in every chart.
pub fn buffer_colour(id: u64) -> RGBColor {
    pool_colour((id % 10) as u32)
}
