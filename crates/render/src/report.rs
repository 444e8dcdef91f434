//! The plan report as one SVG document: time by address over live bytes.

use super::{live_bytes, time_address, View};
use memplan::plan::Plan;
use plotters::coord::Shift;
use plotters::prelude::*;

/// Both charts of `plan` stacked in one SVG document of `width` x `height` pixels,
/// each under a title.
pub fn svg(plan: &Plan, profile: &[(u32, u64)], width: u32, height: u32) -> Result<String, String> {
    let mut out = String::new();
    {
        let root = SVGBackend::with_string(&mut out, (width, height)).into_drawing_area();
        draw_report(&root, plan, profile).map_err(|e| e.to_string())?;
        root.present().map_err(|e| e.to_string())?;
    }
    Ok(out)
}

/// Two plans of the same buffers one above the other in one SVG document, each
/// as [`svg`] draws it: a PyTorch snapshot's real layout over memplan's plan.
pub fn svg_pair(
    first: &Plan,
    second: &Plan,
    profile: &[(u32, u64)],
    width: u32,
    height: u32,
) -> Result<String, String> {
    let mut out = String::new();
    {
        let root = SVGBackend::with_string(&mut out, (width, height)).into_drawing_area();
        let (top, bottom) = root.split_vertically(height / 2);
        draw_report(&top, first, profile).map_err(|e| e.to_string())?;
        draw_report(&bottom, second, profile).map_err(|e| e.to_string())?;
        root.present().map_err(|e| e.to_string())?;
    }
    Ok(out)
}

pub(crate) fn draw_report<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    plan: &Plan,
    profile: &[(u32, u64)],
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    root.fill(&WHITE)?;
    let view = View::default();
    let (top, bottom) = root.split_vertically(root.dim_in_pixel().1 * 3 / 5);
    let title = format!(
        "{}: {} (peak {}, lower bound {})",
        plan.graph,
        plan.strategy,
        memplan::units::format_size(plan.peak_bytes),
        memplan::units::format_size(plan.lower_bound)
    );
    let top = top.titled(&title, view.font(16.0))?;
    time_address(&top, plan, &view)?;
    let bottom = bottom.titled("live bytes per step", view.font(14.0))?;
    live_bytes(&bottom, profile, plan.lower_bound, plan.steps, None, &view)?;
    Ok(())
}
