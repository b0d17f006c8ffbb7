//! Pieces the tabs and modals share: a one-line text input, a scrollable text pager, a list
//! cursor, the styles (with `NO_COLOR`), the schema form (`form/`) and the completion form of
//! resource templates and prompt arguments (`completion.rs`), long lines wrapped or scrolled
//! sideways (`wrap.rs`).

pub mod completion;
pub mod form;
pub mod image;
pub mod input;
pub mod json_editor;
pub mod list;
pub mod pager;
pub mod style;
pub mod wrap;
