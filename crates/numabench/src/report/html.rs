//! HTML pieces of the report: escaping, figures (a plot with its data in a
//! collapsible table beside it), tables and the page itself.

/// Escapes text taken from records for HTML text and attribute values.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            other => out.push(other),
        }
    }
    out
}

/// A table: a header and rows of plain (unescaped) cell text.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Table {
    pub header: Vec<String>,
    pub rows: Vec<Vec<String>>,
    /// The table's CSS class (`records`, `doctor`: their long cells wrap
    /// anywhere); empty for none.
    pub class: &'static str,
}

impl Table {
    pub fn new(header: &[&str]) -> Self {
        Self {
            header: header.iter().map(|h| h.to_string()).collect(),
            rows: Vec::new(),
            class: "",
        }
    }

    pub fn push(&mut self, row: Vec<String>) {
        self.rows.push(row);
    }

    /// Whether the table has no row.
    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    /// The table as HTML, every cell escaped. Long cells wrap at spaces
    /// (and inside a word too long for the page; anywhere in the notes
    /// cell of record tables and every cell of the doctor's), so that a
    /// table fits the page; one still too wide scrolls inside its own box
    /// on screen and is printed whole.
    pub fn to_html(&self) -> String {
        let mut out = match self.class {
            "" => String::from("<div class=\"scroll\"><table><thead><tr>"),
            class => format!("<div class=\"scroll\"><table class=\"{class}\"><thead><tr>"),
        };
        for cell in &self.header {
            out.push_str(&format!("<th>{}</th>", escape(cell)));
        }
        out.push_str("</tr></thead><tbody>");
        for row in &self.rows {
            out.push_str("<tr>");
            for cell in row {
                out.push_str(&match long_word(cell) {
                    true => format!("<td class=\"long\">{}</td>", escape(cell)),
                    false => format!("<td>{}</td>", escape(cell)),
                });
            }
            out.push_str("</tr>");
        }
        out.push_str("</tbody></table></div>");
        out
    }
}

/// Whether a cell holds a word (no space) too long to keep whole in a
/// column (a command line, a JSON value): such cells wrap anywhere, other
/// cells only at spaces, so that numbers are never split.
fn long_word(cell: &str) -> bool {
    cell.split_whitespace()
        .any(|word| word.chars().count() > LONG_WORD)
}

/// Characters of the longest word a cell keeps whole.
const LONG_WORD: usize = 16;

/// A plot (inline SVG) with its caption and its data in a collapsible table.
pub fn figure(svg: &str, caption: &str, data: &Table) -> String {
    format!(
        "<figure class=\"plot\"><div class=\"svg\">{svg}</div><figcaption>{}</figcaption>\
         <details><summary>data ({} rows)</summary>{}</details></figure>",
        escape(caption),
        data.rows.len(),
        data.to_html()
    )
}

/// A number for tables and labels: 4 significant digits (trailing zeros
/// dropped), no exponent for everyday magnitudes.
pub fn number(value: f64) -> String {
    if !value.is_finite() {
        return value.to_string();
    }
    let magnitude = value.abs();
    if magnitude == 0.0 {
        "0".to_string()
    } else if !(1e-3..1e6).contains(&magnitude) {
        format!("{value:.3e}")
    } else {
        let decimals = (3 - magnitude.log10().floor() as i32).max(0) as usize;
        let text = format!("{value:.decimals$}");
        if text.contains('.') {
            text.trim_end_matches('0').trim_end_matches('.').to_string()
        } else {
            text
        }
    }
}

/// Bytes in binary units (`64 KiB`, `256 MiB`), as sizes are typed.
pub fn bytes(value: f64) -> String {
    let units = ["B", "KiB", "MiB", "GiB", "TiB"];
    let mut amount = value;
    let mut unit = 0;
    while amount >= 1024.0 && unit + 1 < units.len() {
        amount /= 1024.0;
        unit += 1;
    }
    if amount.fract() == 0.0 {
        format!("{amount} {}", units[unit])
    } else {
        format!("{amount:.1} {}", units[unit])
    }
}

const STYLE: &str = "body{font-family:sans-serif;max-width:1150px;margin:1em auto;color:#111}\
h1{font-size:1.5em}h2{border-bottom:1px solid #999;margin-top:1.6em}\
table{border-collapse:collapse;font-size:.85em;margin:.4em 0}\
th,td{border:1px solid #bbb;padding:2px 6px;text-align:left;vertical-align:top;overflow-wrap:break-word}\
.scroll{max-width:100%;overflow-x:auto}\
th{background:#eee}td.long,table.records td:last-child,table.doctor td{overflow-wrap:anywhere}\
table.records td:last-child{min-width:10em;font-size:.9em;color:#333}table.doctor{table-layout:auto;width:100%}\
figure.plot{margin:1em 0;break-inside:avoid}\
figcaption{font-size:.9em;color:#333}.svg svg{max-width:100%;height:auto}\
.warning{font-weight:bold}.notes li{color:#7a3b00}\
nav ul{columns:2}\
ul.findings li{margin:.3em 0}\
.pair{display:flex;flex-wrap:wrap;gap:1em}.pair>figure{flex:1 1 480px;min-width:0}\
@media print{details{display:block}details>*{display:block}nav{display:none}\
.scroll{overflow:visible}table{font-size:.7em}}";

/// The id of the findings section: first on the page, right under the
/// title, so that the first screen shows what the machine's NUMA costs.
pub const LEAD: &str = "summary";

/// The whole page: a title, the findings ([`LEAD`]) when there are some,
/// notes about the input, a table of contents and the other sections.
pub fn page(title: &str, notes: &[String], sections: &[(String, String, String)]) -> String {
    let mut out = format!(
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>{}</title>\
         <style>{STYLE}</style></head><body><h1>{}</h1>",
        escape(title),
        escape(title)
    );
    let section = |(id, heading, body): &(String, String, String)| {
        format!(
            "<section id=\"{}\"><h2>{}</h2>{body}</section>",
            escape(id),
            escape(heading)
        )
    };
    for lead in sections.iter().filter(|s| s.0 == LEAD) {
        out.push_str(&section(lead));
    }
    if !notes.is_empty() {
        out.push_str("<section id=\"notes\"><h2>Notes on the input</h2><ul class=\"notes\">");
        for note in notes {
            out.push_str(&format!("<li>{}</li>", escape(note)));
        }
        out.push_str("</ul></section>");
    }
    out.push_str("<nav><ul>");
    for (id, heading, _) in sections {
        out.push_str(&format!(
            "<li><a href=\"#{}\">{}</a></li>",
            escape(id),
            escape(heading)
        ));
    }
    out.push_str("</ul></nav>");
    for other in sections.iter().filter(|s| s.0 != LEAD) {
        out.push_str(&section(other));
    }
    out.push_str("</body></html>\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_markup_from_records() {
        assert_eq!(
            escape("<script>\"a\" & 'b'</script>"),
            "&lt;script&gt;&quot;a&quot; &amp; &#39;b&#39;&lt;/script&gt;"
        );
        let mut table = Table::new(&["h<"]);
        table.push(vec!["<b>".into()]);
        assert!(table.to_html().contains("<td>&lt;b&gt;</td>"));
    }

    #[test]
    fn wide_tables_wrap_and_scroll_on_screen_but_print_whole() {
        let mut table = Table::new(&["params"]);
        table.push(vec!["x".repeat(500)]);
        let html = table.to_html();
        assert!(html.starts_with("<div class=\"scroll\"><table>"), "{html}");
        assert!(html.ends_with("</table></div>"), "{html}");
        assert!(STYLE.contains("overflow-wrap:break-word"));
        assert!(STYLE.contains(".scroll{max-width:100%;overflow-x:auto}"));
        let print = &STYLE[STYLE.find("@media print").unwrap()..];
        assert!(print.contains(".scroll{overflow:visible}"), "{print}");
    }

    /// Only cells with a word too long to keep whole wrap anywhere (a
    /// number is never split); the doctor's and the record tables' notes
    /// cells always may.
    #[test]
    fn long_words_wrap_anywhere_and_short_ones_stay_whole() {
        let mut table = Table::new(&["a", "b"]);
        table.class = "doctor";
        table.push(vec![
            "123456.7".into(),
            "--topology=/a/long/path/to.xml".into(),
        ]);
        let html = table.to_html();
        assert!(html.contains("<table class=\"doctor\">"), "{html}");
        assert!(html.contains("<td>123456.7</td>"), "{html}");
        assert!(html.contains("<td class=\"long\">--topology"), "{html}");
        assert!(STYLE.contains(
            "td.long,table.records td:last-child,table.doctor td{overflow-wrap:anywhere}"
        ));
    }

    /// The findings come right under the title, before the notes on the
    /// input (one per skipped line, possibly many) and the contents.
    #[test]
    fn findings_come_first_under_the_title() {
        let part = |id: &str| (id.to_string(), id.to_string(), String::new());
        let html = page(
            "t",
            &["a note".into()],
            &[part("metadata"), part(LEAD), part("latency")],
        );
        let at = |text: &str| html.find(text).unwrap();
        assert!(at("<h1>t</h1>") < at("<section id=\"summary\">"));
        assert!(at("<section id=\"summary\">") < at("<section id=\"notes\">"));
        assert!(at("<section id=\"notes\">") < at("<nav>"));
        assert!(at("<nav>") < at("<section id=\"metadata\">"));
        assert!(at("<section id=\"metadata\">") < at("<section id=\"latency\">"));
        assert_eq!(html.matches("<section id=\"summary\">").count(), 1);
    }

    #[test]
    fn formats_numbers_and_bytes() {
        assert_eq!(number(123.456), "123.5");
        assert_eq!(number(0.5), "0.5");
        assert_eq!(number(1.0), "1");
        assert_eq!(number(1234.0), "1234");
        assert_eq!(number(2.5e-5), "2.500e-5");
        assert_eq!(bytes(65536.0), "64 KiB");
        assert_eq!(bytes(1536.0), "1.5 KiB");
    }
}
