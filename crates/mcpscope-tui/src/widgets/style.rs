//! The few styles the screens use, each with its `NO_COLOR` form (bold, reversed and plain only).

use ratatui::style::{Color, Modifier, Style};

/// The styles for a terminal with or without colour.
#[derive(Debug, Clone, Copy)]
pub struct Theme {
    color: bool,
}

impl Theme {
    /// The theme for `color` (false under `NO_COLOR`).
    pub fn new(color: bool) -> Theme {
        Theme { color }
    }

    fn fg(&self, c: Color) -> Style {
        if self.color {
            Style::default().fg(c)
        } else {
            Style::default()
        }
    }

    /// Titles and the focused border.
    pub fn title(&self) -> Style {
        self.fg(Color::Cyan).add_modifier(Modifier::BOLD)
    }
    /// The selected row.
    pub fn selected(&self) -> Style {
        if self.color {
            Style::default().bg(Color::Blue).fg(Color::White)
        } else {
            Style::default().add_modifier(Modifier::REVERSED)
        }
    }
    /// Quieter text: hints, times, ids.
    pub fn dim(&self) -> Style {
        if self.color {
            Style::default().fg(Color::DarkGray)
        } else {
            Style::default()
        }
    }
    /// Errors.
    pub fn error(&self) -> Style {
        self.fg(Color::Red).add_modifier(Modifier::BOLD)
    }
    /// Warnings.
    pub fn warn(&self) -> Style {
        self.fg(Color::Yellow)
    }
    /// Good news: connected, accepted, valid.
    pub fn ok(&self) -> Style {
        self.fg(Color::Green)
    }
    /// Keys in hints.
    pub fn key(&self) -> Style {
        self.fg(Color::Yellow).add_modifier(Modifier::BOLD)
    }
    /// Plain text.
    pub fn plain(&self) -> Style {
        Style::default()
    }
}
