//! The report renders in a real browser: headless Chromium (Debian's
//! `chromium`, installed by scripts/setup) opens the report of a
//! characterization and of a placement study, with no console errors, and
//! its screenshot is not blank and shows the plots' colours.

use super::report::REPORT_FIXTURES;
use super::succeeding;
use std::collections::HashSet;
use std::fs::File;
use std::path::Path;
use std::process::Command;

/// Opens `page` in headless Chromium, saves a screenshot to `png`, and
/// returns what the browser logged (console messages included).
fn screenshot(page: &Path, png: &Path, height: u32) -> String {
    let output = Command::new("chromium")
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--enable-logging=stderr",
            "--v=0",
        ])
        .arg(format!("--window-size=1200,{height}"))
        .arg(format!("--screenshot={}", png.display()))
        .arg(format!("file://{}", page.display()))
        .output()
        .expect("chromium must be installed (scripts/setup installs Debian's chromium)");
    assert!(
        output.status.success(),
        "chromium failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// Console errors in Chromium's log: lines of the CONSOLE logger at error
/// level, or uncaught exceptions.
fn console_errors(log: &str) -> Vec<&str> {
    log.lines()
        .filter(|line| {
            (line.contains(":CONSOLE") && line.contains("ERROR")) || line.contains("Uncaught")
        })
        .collect()
}

/// Non-white pixels and the distinct colours (RGB) of a PNG.
fn pixels(png: &Path) -> (usize, HashSet<[u8; 3]>) {
    let decoder = png::Decoder::new(File::open(png).unwrap());
    let mut reader = decoder.read_info().unwrap();
    let mut buffer = vec![0; reader.output_buffer_size()];
    let info = reader.next_frame(&mut buffer).unwrap();
    let channels = info.color_type.samples();
    assert!(
        channels >= 3,
        "colour screenshot expected, got {:?}",
        info.color_type
    );
    let mut ink = 0;
    let mut colours = HashSet::new();
    for pixel in buffer[..info.buffer_size()].chunks(channels) {
        let rgb = [pixel[0], pixel[1], pixel[2]];
        if rgb != [255, 255, 255] {
            ink += 1;
        }
        colours.insert(rgb);
    }
    (ink, colours)
}

/// Whether a colour close to `target` (each channel within 12) was drawn.
fn has_colour(colours: &HashSet<[u8; 3]>, target: [u8; 3]) -> bool {
    colours
        .iter()
        .any(|c| c.iter().zip(target).all(|(a, b)| a.abs_diff(b) <= 12))
}

/// Height of the screenshots: the first sections of a report.
const HEIGHT: u32 = 3000;

fn check_rendered(inputs: &[&str], name: &str, plot_colours: &[[u8; 3]]) {
    check_rendered_tall(inputs, name, plot_colours, HEIGHT)
}

/// [`check_rendered`] over the first `height` pixels of the page.
fn check_rendered_tall(inputs: &[&str], name: &str, plot_colours: &[[u8; 3]], height: u32) {
    let dir = tempfile::tempdir().unwrap();
    let page = dir.path().join(format!("{name}.html"));
    let mut arguments = vec!["report".to_string()];
    arguments.extend(inputs.iter().map(|i| format!("{REPORT_FIXTURES}{i}")));
    arguments.extend(["-o".to_string(), page.to_str().unwrap().to_string()]);
    succeeding(&arguments.iter().map(String::as_str).collect::<Vec<_>>());
    let png = dir.path().join(format!("{name}.png"));
    let log = screenshot(&page, &png, height);
    assert!(
        console_errors(&log).is_empty(),
        "{name}: console errors: {log}"
    );
    let (ink, colours) = pixels(&png);
    let total = 1200 * height as usize;
    assert!(
        ink > total / 50,
        "{name}: only {ink} non-white pixels: blank page?"
    );
    assert!(
        colours.len() > 50,
        "{name}: {} colours: no plots?",
        colours.len()
    );
    for colour in plot_colours {
        assert!(
            has_colour(&colours, *colour),
            "{name}: plot colour {colour:?} not on screen"
        );
    }
}

#[test]
fn the_report_of_a_characterization_renders() {
    // Okabe-Ito black and orange (first two series of the bandwidth plot,
    // visible in the first 3000 pixels) and viridis ink of the heatmaps is
    // further down, so only the line colours are asked for.
    // The node diagram's pale blue node boxes (sky blue at 25% on white)
    // are near the top.
    // 4000 px: the notes and the "Other records" note above push the plots down.
    check_rendered_tall(
        &["characterize.jsonl", "topology.json", "doctor.json"],
        "characterize",
        &[[0, 0, 0], [230, 159, 0], [213, 236, 250]],
        4000,
    );
}

#[test]
fn the_report_of_a_cluster_and_an_over_decomposition_renders() {
    // Vermilion outlier crosses of the cluster strips, the sweep's orange
    // second curve (below the cluster's record tables: a taller page).
    check_rendered_tall(
        &["cluster.jsonl", "overdecompose.jsonl"],
        "cluster",
        &[[213, 94, 0], [230, 159, 0]],
        6000,
    );
}

#[test]
fn the_report_of_a_placement_study_renders() {
    check_rendered(
        &["placement-study-stream.jsonl"],
        "placement-study",
        &[[230, 159, 0], [86, 180, 233], [0, 158, 115]],
    );
}

#[test]
fn the_console_check_catches_a_script_error() {
    let dir = tempfile::tempdir().unwrap();
    let page = dir.path().join("broken.html");
    std::fs::write(
        &page,
        "<html><body><p>x</p><script>notDefinedAnywhere();</script></body></html>",
    )
    .unwrap();
    let log = screenshot(&page, &dir.path().join("broken.png"), HEIGHT);
    assert!(
        !console_errors(&log).is_empty(),
        "the error went unseen: {log}"
    );
}

/// A one-node machine's node matrix (measured here: one NUMA node) is one
/// 1 x 1 heatmap. Before the fix its cell had height 0: the screenshot
/// showed empty axes and no pixel of the cell's colour. Now the cell (the
/// middle of viridis, #23918C, as a single value gets) covers a real area.
#[test]
fn a_one_node_matrix_heatmap_is_not_blank() {
    let dir = tempfile::tempdir().unwrap();
    let results = dir.path().join("matrix.jsonl");
    let page = dir.path().join("matrix.html");
    succeeding(&[
        "matrix",
        "latency",
        "--repeat",
        "1",
        "--jsonl",
        results.to_str().unwrap(),
    ]);
    succeeding(&[
        "report",
        results.to_str().unwrap(),
        "-o",
        page.to_str().unwrap(),
    ]);
    let png = dir.path().join("matrix.png");
    let log = screenshot(&page, &png, 1500);
    assert!(console_errors(&log).is_empty(), "{log}");
    let decoder = png::Decoder::new(File::open(&png).unwrap());
    let mut reader = decoder.read_info().unwrap();
    let mut buffer = vec![0; reader.output_buffer_size()];
    let info = reader.next_frame(&mut buffer).unwrap();
    let channels = info.color_type.samples();
    let cell = buffer[..info.buffer_size()]
        .chunks(channels)
        .filter(|p| {
            p[..3]
                .iter()
                .zip([0x23u8, 0x91, 0x8C])
                .all(|(a, b)| a.abs_diff(b) <= 6)
        })
        .count();
    // The cell is about 200 x 130 px; 5,000 px leaves room for fonts and scale.
    assert!(cell > 5_000, "{cell} pixels of the cell's colour");
}

/// Opens `page` in headless Chromium at `width` x `height` with `script`
/// run at the end of the body (on a copy of the page: the report itself
/// has no script), and returns the text the script left in the element
/// `#probe` of the DOM Chromium dumps after layout.
fn probe(page: &Path, script: &str, (width, height): (u32, u32)) -> String {
    let html = std::fs::read_to_string(page).unwrap();
    let probed = page.with_extension("probe.html");
    std::fs::write(
        &probed,
        html.replace(
            "</body>",
            &format!("<pre id=\"probe\"></pre><script>{script}</script></body>"),
        ),
    )
    .unwrap();
    let output = Command::new("chromium")
        .args(["--headless", "--no-sandbox", "--disable-gpu", "--dump-dom"])
        .arg(format!("--window-size={width},{height}"))
        .arg(format!("file://{}", probed.display()))
        .output()
        .expect("chromium must be installed (scripts/setup installs Debian's chromium)");
    assert!(output.status.success(), "chromium failed");
    let dom = String::from_utf8_lossy(&output.stdout);
    let start = dom.find("<pre id=\"probe\">").expect("probe in the DOM") + 16;
    dom[start..start + dom[start..].find("</pre>").unwrap()].to_string()
}

/// Tables do not scroll sideways (issue 23): in a real browser 1280 px
/// wide, with every collapsed table opened, no table of a report of a
/// characterization, doctor, topology, cluster, placement study and run
/// is wider than its box, and the page itself does not scroll sideways.
/// Before: record tables had a `params` column of `key=value` dumps whose
/// long words (simd_calibration={...}) made them scroll.
#[test]
fn report_tables_fit_the_page_width() {
    let dir = tempfile::tempdir().unwrap();
    let page = dir.path().join("all.html");
    let mut arguments = vec!["report".to_string()];
    for input in [
        "characterize.jsonl",
        "characterize-summary.jsonl",
        "topology.json",
        "doctor.json",
        "cluster.jsonl",
        "placement-study-stream.jsonl",
        "run.jsonl",
        "overdecompose.jsonl",
    ] {
        arguments.push(format!("{REPORT_FIXTURES}{input}"));
    }
    arguments.extend(["-o".to_string(), page.to_str().unwrap().to_string()]);
    succeeding(&arguments.iter().map(String::as_str).collect::<Vec<_>>());
    let script = "document.querySelectorAll('details').forEach(d => d.open = true);\
        const wide = [...document.querySelectorAll('.scroll')]\
          .filter(b => b.scrollWidth > b.clientWidth + 1)\
          .map(b => (b.closest('section') || {}).id + ': ' + b.scrollWidth + ' > ' + b.clientWidth\
            + ' [' + [...b.querySelectorAll('th')].map(h => h.textContent).join('|') + ']');\
        const root = document.documentElement;\
        if (root.scrollWidth > root.clientWidth) wide.push('page: ' + root.scrollWidth);\
        document.getElementById('probe').textContent =\
          document.querySelectorAll('.scroll').length + ' tables; ' + wide.join('\\n');";
    let result = probe(&page, script, (1280, 800));
    let (count, wide) = result.split_once(" tables; ").expect(&result);
    assert!(
        count.parse::<usize>().unwrap() > 20,
        "the tables were found: {result}"
    );
    assert!(wide.is_empty(), "tables wider than the page:\n{wide}");
}

/// Pixels of a PNG within 40 per channel of `target` (anti-aliased text
/// keeps its colour only at the strokes' cores).
fn pixels_of(png: &Path, target: [u8; 3]) -> usize {
    let decoder = png::Decoder::new(File::open(png).unwrap());
    let mut reader = decoder.read_info().unwrap();
    let mut buffer = vec![0; reader.output_buffer_size()];
    let info = reader.next_frame(&mut buffer).unwrap();
    buffer[..info.buffer_size()]
        .chunks(info.color_type.samples())
        .filter(|p| p[..3].iter().zip(target).all(|(a, b)| a.abs_diff(b) <= 40))
        .count()
}

/// The report's first screen shows the findings (issue 23): in a 1280 x 800
/// Chromium screenshot of a characterization's report whose input had 40
/// lines skipped (40 notes on the input), the findings' text, painted
/// magenta in a copy of the page, is on screen. Before: the notes and the
/// contents came first and pushed the findings below the first screen.
#[test]
fn the_first_screen_shows_the_findings() {
    let dir = tempfile::tempdir().unwrap();
    let results = dir.path().join("characterize.jsonl");
    let mut text =
        std::fs::read_to_string(format!("{REPORT_FIXTURES}characterize-summary.jsonl")).unwrap();
    for line in 0..40 {
        text.push_str(&format!("{{\"type\":\"record\",\"broken\":{line}\n"));
    }
    std::fs::write(&results, text).unwrap();
    let page = dir.path().join("report.html");
    succeeding(&[
        "report",
        results.to_str().unwrap(),
        &format!("{REPORT_FIXTURES}topology.json"),
        &format!("{REPORT_FIXTURES}doctor.json"),
        "-o",
        page.to_str().unwrap(),
    ]);
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(
        html.matches("<li>").count() > 40,
        "the notes are on the page"
    );
    let painted = dir.path().join("painted.html");
    std::fs::write(
        &painted,
        html.replace(
            "</head>",
            "<style>ul.findings li{color:#ff00ff}</style></head>",
        ),
    )
    .unwrap();
    let png = dir.path().join("first-screen.png");
    let output = Command::new("chromium")
        .args(["--headless", "--no-sandbox", "--disable-gpu"])
        .arg("--window-size=1280,800")
        .arg(format!("--screenshot={}", png.display()))
        .arg(format!("file://{}", painted.display()))
        .output()
        .expect("chromium must be installed (scripts/setup installs Debian's chromium)");
    assert!(output.status.success(), "chromium failed");
    // One line of 13 px text holds a few hundred pixels of its colour.
    let magenta = pixels_of(&png, [255, 0, 255]);
    assert!(
        magenta > 500,
        "{magenta} pixels of the findings' text in the first 1280 x 800"
    );
}
