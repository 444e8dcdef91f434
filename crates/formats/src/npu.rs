//! The NPU contest case, as JSON (`{"Nodes": [...], "Edges": [[src, dst], ...]}`) or
//! as the CSV pair `<case>_Nodes.csv` (`Id,Op,BufId,Size,Type,Pipe,Cycles,Bufs`,
//! Bufs quoted as `"3,1"`) and `<case>_Edges.csv` (`StartNodeId,EndNodeId`).

use super::json_error;
use memplan::error::Error;
use memplan_npu::case::{BufferId, Case, Level, Node, NodeId, RawNode};
use serde::{Deserialize, Serialize};

#[derive(Deserialize)]
#[serde(rename_all = "PascalCase")]
struct File {
    nodes: Vec<FileNode>,
    edges: Vec<(u64, u64)>,
}

#[derive(Deserialize)]
#[serde(rename_all = "PascalCase")]
struct FileNode {
    id: u64,
    op: String,
    buf_id: Option<u64>,
    size: Option<u64>,
    #[serde(rename = "Type")]
    level: Option<String>,
    pipe: Option<String>,
    cycles: Option<u64>,
    #[serde(default)]
    bufs: Vec<u64>,
}

/// A node as [`write_json`] writes it: the contest's fields, absent ones left out.
#[derive(Serialize)]
#[serde(rename_all = "PascalCase")]
struct OutNode<'a> {
    id: usize,
    op: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    buf_id: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    size: Option<u64>,
    #[serde(rename = "Type", skip_serializing_if = "Option::is_none")]
    level: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pipe: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    cycles: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    bufs: Option<Vec<u64>>,
}

#[derive(Serialize)]
#[serde(rename_all = "PascalCase")]
struct OutFile<'a> {
    nodes: Vec<OutNode<'a>>,
    edges: &'a [(NodeId, NodeId)],
}

/// `case` as contest JSON, which [`read_json`] reads back to the same case: how
/// `memplan export` writes a case given as the CSV pair, and how a demo carries it.
pub fn write_json(case: &Case) -> String {
    let buffer = |b: BufferId, op: &'static str, id: usize| {
        let buf = case.buffer(b);
        OutNode {
            id,
            op,
            buf_id: Some(buf.buf_id),
            size: Some(buf.size),
            level: Some(&case.level(buf.level).name),
            pipe: None,
            cycles: None,
            bufs: None,
        }
    };
    let nodes = case
        .nodes
        .iter()
        .enumerate()
        .map(|(id, node)| match node {
            Node::Alloc(b) => buffer(*b, "ALLOC", id),
            Node::Free(b) => buffer(*b, "FREE", id),
            Node::Op(op) => OutNode {
                id,
                op: &op.op,
                buf_id: None,
                size: None,
                level: None,
                pipe: Some(op.pipe.name()),
                cycles: Some(op.cycles),
                bufs: Some(op.bufs.iter().map(|&b| case.buffer(b).buf_id).collect()),
            },
        })
        .collect();
    let file = OutFile {
        nodes,
        edges: &case.edges,
    };
    serde_json::to_string(&file).expect("a case serialises") + "\n"
}

pub fn read_json(data: &[u8], name: &str, levels: Vec<Level>) -> Result<Case, Error> {
    let file: File = serde_json::from_slice(data).map_err(|e| json_error("npu json", e))?;
    let raw = file
        .nodes
        .into_iter()
        .map(|n| RawNode {
            id: n.id,
            op: n.op,
            buf_id: n.buf_id,
            size: n.size,
            level: n.level,
            pipe: n.pipe,
            cycles: n.cycles,
            bufs: n.bufs,
        })
        .collect();
    Case::new(name.to_string(), raw, file.edges, levels)
}

/// The case a CSV pair's nodes file names, `<case>` of `<case>_Nodes.csv`; `None`
/// for any other file name.
pub fn csv_case_name(file_name: &str) -> Option<&str> {
    file_name.strip_suffix("_Nodes.csv")
}

/// The edges file beside the nodes file of `case`: `<case>_Edges.csv`.
pub fn csv_edges_name(case: &str) -> String {
    format!("{case}_Edges.csv")
}

pub fn read_csv(nodes: &[u8], edges: &[u8], name: &str, levels: Vec<Level>) -> Result<Case, Error> {
    let node_rows = rows(nodes, "npu nodes csv")?;
    let edge_rows = rows(edges, "npu edges csv")?;
    let header =
        |rows: &[Vec<String>], want: &[&str], format: &'static str| -> Result<Vec<usize>, Error> {
            let head = rows
                .first()
                .ok_or_else(|| Error::parse(format, None, "the file is empty"))?;
            want.iter()
                .map(|w| {
                    head.iter()
                        .position(|h| h.eq_ignore_ascii_case(w))
                        .ok_or_else(|| {
                            Error::parse(
                                format,
                                Some("line 1".into()),
                                format!("the header has no `{w}` column"),
                            )
                        })
                })
                .collect()
        };
    let cols = header(
        &node_rows,
        &[
            "Id", "Op", "BufId", "Size", "Type", "Pipe", "Cycles", "Bufs",
        ],
        "npu nodes csv",
    )?;
    let mut raw = Vec::with_capacity(node_rows.len());
    for (line, row) in node_rows.iter().enumerate().skip(1) {
        let at = || Some(format!("line {}", line + 1));
        let cell = |k: usize| row.get(cols[k]).map(|s| s.trim()).unwrap_or("");
        let num = |k: usize| -> Result<Option<u64>, Error> {
            let c = cell(k);
            if c.is_empty() {
                return Ok(None);
            }
            c.parse()
                .map(Some)
                .map_err(|_| Error::parse("npu nodes csv", at(), format!("`{c}` is not a number")))
        };
        let text = |k: usize| Some(cell(k).to_string()).filter(|s| !s.is_empty());
        let bufs = cell(7)
            .split(',')
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(|s| {
                s.parse::<u64>().map_err(|_| {
                    Error::parse(
                        "npu nodes csv",
                        at(),
                        format!("`{s}` in Bufs is not a buffer id"),
                    )
                })
            })
            .collect::<Result<Vec<u64>, Error>>()?;
        let id = num(0)?.ok_or_else(|| Error::parse("npu nodes csv", at(), "missing Id"))?;
        raw.push(RawNode {
            id,
            op: cell(1).to_string(),
            buf_id: num(2)?,
            size: num(3)?,
            level: text(4),
            pipe: text(5),
            cycles: num(6)?,
            bufs,
        });
    }
    let cols = header(&edge_rows, &["StartNodeId", "EndNodeId"], "npu edges csv")?;
    let mut out = Vec::with_capacity(edge_rows.len());
    for (line, row) in edge_rows.iter().enumerate().skip(1) {
        let num = |k: usize| -> Result<u64, Error> {
            let c = row.get(cols[k]).map(|s| s.trim()).unwrap_or("");
            c.parse().map_err(|_| {
                Error::parse(
                    "npu edges csv",
                    Some(format!("line {}", line + 1)),
                    format!("`{c}` is not a node id"),
                )
            })
        };
        out.push((num(0)?, num(1)?));
    }
    Case::new(name.to_string(), raw, out, levels)
}

/// Splits CSV text into rows of fields, honouring double quotes; skips blank lines.
fn rows(data: &[u8], format: &'static str) -> Result<Vec<Vec<String>>, Error> {
    let text = std::str::from_utf8(data)
        .map_err(|e| Error::parse(format, None, format!("not UTF-8 text ({e})")))?;
    let text = text.trim_start_matches('\u{feff}');
    let mut out = Vec::new();
    for (n, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let mut fields = vec![String::new()];
        let mut quoted = false;
        let mut chars = line.chars().peekable();
        while let Some(c) = chars.next() {
            match c {
                '"' if quoted && chars.peek() == Some(&'"') => {
                    chars.next();
                    fields.last_mut().unwrap().push('"');
                }
                '"' => quoted = !quoted,
                ',' if !quoted => fields.push(String::new()),
                _ => fields.last_mut().unwrap().push(c),
            }
        }
        if quoted {
            return Err(Error::parse(
                format,
                Some(format!("line {}", n + 1)),
                "a quoted field is not closed",
            ));
        }
        out.push(fields);
    }
    Ok(out)
}
