//! Lines of free text fitted to the terminal: a line wider than the width
//! is wrapped at spaces, its continuation indented under its text (after a
//! `why: ` or `fix: ` label, or a `[tag ] ` prefix), so indented blocks
//! such as doctor's stay readable. Words are never split: a command longer
//! than the width stays one line to copy.

/// Where a line's text starts: after its indentation and a leading label.
fn hanging_indent(line: &str) -> usize {
    let indent = line.len() - line.trim_start().len();
    let rest = &line[indent..];
    for label in ["why: ", "fix: "] {
        if rest.starts_with(label) {
            return indent + label.len();
        }
    }
    if rest.starts_with('[') {
        if let Some(end) = rest.find("] ") {
            return indent + end + 2;
        }
    }
    indent + 2
}

/// `text` with every line wider than `width` wrapped (see the module).
pub fn wrap_lines(text: &str, width: usize) -> String {
    let mut out = String::new();
    for line in text.lines() {
        if line.chars().count() <= width {
            out.push_str(line);
            out.push('\n');
            continue;
        }
        let indent = line.len() - line.trim_start().len();
        let hanging = " ".repeat(hanging_indent(line));
        let options = textwrap::Options::new(width)
            .initial_indent(&line[..indent])
            .subsequent_indent(&hanging)
            .break_words(false)
            .word_splitter(textwrap::WordSplitter::NoHyphenation);
        out.push_str(&textwrap::fill(line.trim_start(), &options));
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_lines_wrap_under_their_label_and_short_ones_stay() {
        let text = "[WARN] damon: DAMON is acting on memory: kdamond 0 (paddr) pages out idle memory\n       why: DAMON samples pages' accessed bits and its schemes act on what it finds here\nshort\n";
        let wrapped = wrap_lines(text, 50);
        assert!(
            wrapped.lines().all(|line| line.chars().count() <= 50),
            "{wrapped}"
        );
        let lines: Vec<&str> = wrapped.lines().collect();
        assert!(lines[0].starts_with("[WARN] damon:"));
        assert!(
            lines[1].starts_with("       ") && !lines[1].starts_with("        "),
            "{wrapped}"
        );
        let why = lines
            .iter()
            .position(|line| line.trim_start().starts_with("why: "))
            .unwrap();
        assert!(lines[why + 1].starts_with(&" ".repeat(12)), "{wrapped}");
        assert_eq!(*lines.last().unwrap(), "short");
        // The same words, in order.
        let words = |text: &str| {
            text.split_whitespace()
                .map(str::to_string)
                .collect::<Vec<_>>()
        };
        assert_eq!(words(&wrapped), words(text));
    }

    #[test]
    fn a_word_wider_than_the_width_is_not_split() {
        let path = "/sys/devices/system/node/nodeX/hugepages/hugepages-2048kB/nr_hugepages";
        let wrapped = wrap_lines(&format!("       fix: echo N | sudo tee {path}"), 40);
        assert!(wrapped.lines().any(|line| line.trim() == path), "{wrapped}");
    }
}
