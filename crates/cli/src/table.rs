//! The bench commands' tables: each row printed as it comes, aligned for a
//! terminal, or with `--markdown` kept and printed at the end as one markdown
//! table (as `bench/results.sh` writes them into `docs/results.md`).

/// One table of a bench command.
pub struct Table {
    markdown: bool,
    /// A row as the terminal shows it.
    line: fn(&[String]) -> String,
    /// With `--markdown`: the header, then every row so far.
    rows: Vec<Vec<String>>,
}

impl Table {
    /// A table with header `head` and terminal lines made by `line`; the header's
    /// line is printed now unless the table is markdown.
    pub fn new(markdown: bool, head: &[&str], line: fn(&[String]) -> String) -> Table {
        let head = cells(head);
        if !markdown {
            println!("{}", line(&head));
        }
        Table {
            markdown,
            line,
            rows: vec![head],
        }
    }

    pub fn markdown(&self) -> bool {
        self.markdown
    }

    /// A row, printed now unless markdown.
    pub fn row(&mut self, cells: Vec<String>) {
        if !self.markdown {
            println!("{}", (self.line)(&cells));
        }
        self.keep(cells);
    }

    /// A row whose terminal line is `text` rather than its cells aligned (a file
    /// skipped or failed, said in words).
    pub fn row_said(&mut self, cells: Vec<String>, text: &str) {
        if !self.markdown {
            println!("{text}");
        }
        self.keep(cells);
    }

    fn keep(&mut self, cells: Vec<String>) {
        if self.markdown {
            self.rows.push(cells);
        }
    }

    /// With `--markdown`, prints the table; otherwise its rows are out already.
    pub fn finish(&self) {
        if self.markdown {
            print_markdown(&self.rows);
        }
    }
}

pub fn cells(texts: &[&str]) -> Vec<String> {
    texts.iter().map(|t| t.to_string()).collect()
}

/// A markdown table whose first row is the header; a column whose cells start
/// with a digit is aligned right, and a `|` inside a cell is escaped.
pub fn print_markdown(rows: &[Vec<String>]) {
    let Some((head, body)) = rows.split_first() else {
        return;
    };
    let line = |row: &[String]| {
        let escaped: Vec<String> = row.iter().map(|c| c.replace('|', "\\|")).collect();
        format!("| {} |", escaped.join(" | "))
    };
    println!("{}", line(head));
    let numeric = |i: usize| {
        body.iter().any(|r| {
            r.get(i)
                .is_some_and(|c| c.starts_with(|c: char| c.is_ascii_digit()))
        })
    };
    let rule: Vec<&str> = (0..head.len())
        .map(|i| if i > 0 && numeric(i) { "---:" } else { "---" })
        .collect();
    println!("|{}|", rule.join("|"));
    for row in body {
        println!("{}", line(row));
    }
}
