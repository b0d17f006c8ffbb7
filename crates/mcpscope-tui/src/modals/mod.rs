//! What can sit over the current tab: the key help (`?`), the quit question, a pager, and a
//! server's question (`interaction.rs`). A modal has the keyboard until it closes.

pub mod interaction;

use crate::msg::Effect;
use crate::widgets::pager::Pager;
use crossterm::event::{KeyCode, KeyEvent};

/// The modal on top.
#[derive(Debug, Clone)]
pub enum Modal {
    /// Every key binding.
    Help {
        /// The first line drawn.
        top: usize,
    },
    /// "Quit?" while something is running.
    Quit,
    /// A body, a result, a frame.
    Pager(Pager),
    /// A server's question (elicitation, sampling, roots, …).
    Interaction(Box<interaction::Dialog>),
}

/// What a key did to a modal.
#[derive(Debug)]
pub enum Outcome {
    /// It stays open; do these.
    Stay(Vec<Effect>),
    /// It closes; do these.
    Close(Vec<Effect>),
}

/// A key for `modal`; `height` is the rows it has on screen.
pub fn key(modal: &mut Modal, key: KeyEvent, height: usize) -> Outcome {
    match modal {
        Modal::Help { top } => match key.code {
            KeyCode::Esc | KeyCode::Char('?') | KeyCode::Char('q') | KeyCode::Enter => {
                Outcome::Close(vec![])
            }
            KeyCode::Down => {
                *top += 1;
                Outcome::Stay(vec![])
            }
            KeyCode::Up => {
                *top = top.saturating_sub(1);
                Outcome::Stay(vec![])
            }
            KeyCode::PageDown | KeyCode::Char(' ') => {
                *top += height.max(1);
                Outcome::Stay(vec![])
            }
            KeyCode::PageUp => {
                *top = top.saturating_sub(height.max(1));
                Outcome::Stay(vec![])
            }
            _ => Outcome::Stay(vec![]),
        },
        Modal::Quit => match key.code {
            KeyCode::Char('y') | KeyCode::Char('q') | KeyCode::Enter => {
                Outcome::Close(vec![Effect::Quit])
            }
            _ => Outcome::Close(vec![]),
        },
        Modal::Pager(p) => match key.code {
            KeyCode::Esc | KeyCode::Char('q') => Outcome::Close(vec![]),
            KeyCode::Char('y') => Outcome::Stay(vec![Effect::Copy(p.text())]),
            _ => {
                p.key(key, height);
                Outcome::Stay(vec![])
            }
        },
        Modal::Interaction(d) => d.key(key),
    }
}
