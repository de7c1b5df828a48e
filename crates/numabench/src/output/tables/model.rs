//! The table model: what goes in which cell, with no notion of width,
//! borders or a terminal (the command line renders it).

/// One table shaped for what was measured.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct TableModel {
    /// A short line above the table saying what it shows.
    pub title: String,
    /// Column headers.
    pub header: Vec<String>,
    /// Rows of cells, each as long as `header`.
    pub rows: Vec<Vec<String>>,
    /// Lines under the table: what a mark means, and values too long for
    /// a cell (nothing important is cut, it moves here).
    pub notes: Vec<String>,
}

impl TableModel {
    /// An empty table with a title and headers.
    pub fn new(title: impl Into<String>, header: &[&str]) -> Self {
        Self {
            title: title.into(),
            header: header.iter().map(|text| text.to_string()).collect(),
            rows: Vec::new(),
            notes: Vec::new(),
        }
    }

    /// Adds a row (padded with empty cells, or cut, to the header's width).
    pub fn push(&mut self, mut row: Vec<String>) {
        row.resize(self.header.len(), String::new());
        self.rows.push(row);
    }

    /// Adds a note line unless an equal one is there already.
    pub fn note(&mut self, text: impl Into<String>) {
        let text = text.into();
        if !self.notes.contains(&text) {
            self.notes.push(text);
        }
    }

    /// The table as plain text, one `|`-separated line per row: the form
    /// golden tests compare (the terminal's borders are the renderer's).
    pub fn plain(&self) -> String {
        let mut text = format!("{}\n{}\n", self.title, self.header.join(" | "));
        for row in &self.rows {
            text.push_str(&row.join(" | "));
            text.push('\n');
        }
        for note in &self.notes {
            text.push_str(note);
            text.push('\n');
        }
        text
    }
}
