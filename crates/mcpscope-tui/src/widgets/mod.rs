//! Pieces the tabs and modals share: a one-line text input, a scrollable text pager, a list
//! cursor, and the styles (with `NO_COLOR`).

pub mod form;
pub mod image;
pub mod input;
pub mod json_editor;
pub mod list;
pub mod pager;
pub mod style;
