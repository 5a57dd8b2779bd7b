//! Reading JSON that names what it does not know: every JSON file amgcomm
//! reads (machine files, measured JSON, pattern files, parameter files,
//! Caliper profiles) goes through [`from_str`], so that a misspelt field
//! is told as "unknown field `dleta` in params (did you mean `delta`?)",
//! where serde alone would say "missing field `delta`" or list every
//! field.

use serde::de::DeserializeOwned;
use serde_json::Value;

/// Why a JSON text does not read: the line (when one is to blame) and one
/// sentence.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[error("{}{message}", line.map(|l| format!("line {l}: ")).unwrap_or_default())]
pub struct JsonError {
    /// 1-based line, when serde names one.
    pub line: Option<usize>,
    /// What is wrong, in the file's terms.
    pub message: String,
}

/// The known name nearest `word`, when it is a plausible misspelling: at
/// most two edits (a transposition is one) and fewer than half its
/// letters.
pub fn nearest<'a>(word: &str, known: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    known
        .into_iter()
        .map(|k| (strsim::damerau_levenshtein(word, k), k))
        .filter(|&(d, _)| d > 0 && d <= 2 && 2 * d < word.chars().count().max(2))
        .min_by_key(|&(d, _)| d)
        .map(|(_, k)| k)
}

/// "unknown field `f` in place (did you mean `g`?)", or with the known
/// fields listed when none is near.
pub fn unknown<'a>(field: &str, place: &str, known: impl IntoIterator<Item = &'a str>) -> String {
    let known: Vec<&str> = known.into_iter().collect();
    match nearest(field, known.iter().copied()) {
        Some(k) => format!("unknown field `{field}` in {place} (did you mean `{k}`?)"),
        None => format!(
            "unknown field `{field}` in {place} (fields: {})",
            known.join(", ")
        ),
    }
}

/// `T` from `text`, its errors told with the field's place: an unknown
/// field with the nearest known one, a missing field with the misspelt
/// one beside it when there is one.
pub fn from_str<T: DeserializeOwned>(text: &str) -> Result<T, JsonError> {
    let told = |path: &str, e: serde_json::Error| JsonError {
        line: (e.line() > 0).then_some(e.line()),
        message: explain(text, path, &e.to_string()),
    };
    let mut de = serde_json::Deserializer::from_str(text);
    let v: T = serde_path_to_error::deserialize(&mut de).map_err(|e| {
        let path = e.path().to_string();
        told(&path, e.into_inner())
    })?;
    // Nothing but white space after the value.
    de.end().map_err(|e| told("", e))?;
    Ok(v)
}

/// Where `path` is, for people: "params", "levels[0].spmv", or "the top
/// level".
fn place(path: &str) -> String {
    if path.is_empty() || path == "." {
        "the top level".into()
    } else {
        path.to_string()
    }
}

/// serde's message `message` about `path` of `text`, rewritten.
fn explain(text: &str, path: &str, message: &str) -> String {
    // serde_json appends " at line L column C"; the line is told apart.
    let message = message.rsplit_once(" at line ").map_or(message, |(m, _)| m);
    let quoted = |s: &str| -> Vec<String> {
        s.split('`')
            .skip(1)
            .step_by(2)
            .map(str::to_string)
            .collect()
    };
    // A reader's own message ([`unknown`]) is already told.
    if message.starts_with("unknown field ")
        && (message.contains("(did you mean") || message.contains("(fields:"))
    {
        return message.to_string();
    }
    if let Some(rest) = message.strip_prefix("unknown field ") {
        let names = quoted(rest);
        if let Some((field, known)) = names.split_first() {
            // The path ends in the unknown field itself.
            let at = path
                .strip_suffix(field.as_str())
                .map(|p| p.trim_end_matches('.'))
                .unwrap_or(path);
            return unknown(field, &place(at), known.iter().map(String::as_str));
        }
    }
    if let Some(rest) = message.strip_prefix("missing field ") {
        if let Some(field) = quoted(rest).first() {
            // A misspelling of it among the object's own keys is the cause.
            let keys = object_at(text, path);
            let near = keys.iter().find(|k| nearest(k, [field.as_str()]).is_some());
            return match near {
                Some(k) => format!(
                    "unknown field `{k}` in {} (did you mean `{field}`?)",
                    place(path)
                ),
                None => format!("missing field `{field}` in {}", place(path)),
            };
        }
    }
    if path.is_empty() || path == "." {
        message.to_string()
    } else {
        format!("{}: {message}", path)
    }
}

/// The keys of the object at `path` (serde_path_to_error's `a.b[0].c`)
/// of `text`, or none.
fn object_at(text: &str, path: &str) -> Vec<String> {
    let Ok(mut v) = serde_json::from_str::<Value>(text) else {
        return Vec::new();
    };
    if !(path.is_empty() || path == ".") {
        for part in path.split('.') {
            let (name, indices) = part.split_once('[').unwrap_or((part, ""));
            if !name.is_empty() {
                v = v.get(name).cloned().unwrap_or(Value::Null);
            }
            for i in indices.split('[').filter(|s| !s.is_empty()) {
                let i: usize = i.trim_end_matches(']').parse().unwrap_or(usize::MAX);
                v = v.get(i).cloned().unwrap_or(Value::Null);
            }
        }
    }
    match v {
        Value::Object(m) => m.keys().cloned().collect(),
        _ => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, serde::Deserialize)]
    #[serde(deny_unknown_fields)]
    #[allow(dead_code)]
    struct Inner {
        delta: f64,
        #[serde(default)]
        gamma: f64,
    }

    #[derive(Debug, serde::Deserialize)]
    #[serde(deny_unknown_fields)]
    #[allow(dead_code)]
    struct Outer {
        name: String,
        params: Inner,
        #[serde(default)]
        levels: Vec<Inner>,
    }

    fn err(text: &str) -> String {
        from_str::<Outer>(text).unwrap_err().to_string()
    }

    #[test]
    fn misspelt_fields_are_named_with_the_nearest() {
        assert_eq!(
            err(r#"{"name": "x", "params": {"dleta": 1}}"#),
            "line 1: unknown field `dleta` in params (did you mean `delta`?)"
        );
        assert_eq!(
            err(r#"{"name": "x", "params": {"delta": 1, "gama": 2}}"#),
            "line 1: unknown field `gama` in params (did you mean `gamma`?)"
        );
        assert_eq!(
            err("{\"name\": \"x\",\n \"params\": {\"delta\": 1}, \"levels\": [{\"delta\": 1}, {\"detla\": 2}]}"),
            "line 2: unknown field `detla` in levels[1] (did you mean `delta`?)"
        );
        assert_eq!(
            err(r#"{"nmae": "x", "params": {"delta": 1}}"#),
            "line 1: unknown field `nmae` in the top level (did you mean `name`?)"
        );
        // Nothing near: the fields are listed; a field truly missing is
        // told as missing.
        assert_eq!(
            err(r#"{"name": "x", "params": {"delta": 1, "zzzzzz": 2}}"#),
            "line 1: unknown field `zzzzzz` in params (fields: delta, gamma)"
        );
        assert_eq!(
            err(r#"{"name": "x", "params": {}}"#),
            "line 1: missing field `delta` in params"
        );
        assert_eq!(
            err(r#"{"name": "x", "params": {"delta": "a"}}"#),
            "line 1: params.delta: invalid type: string \"a\", expected f64"
        );
        assert_eq!(
            err(r#"{"name": "x", "params": {"delta": 1}} x"#),
            "line 1: trailing characters"
        );
    }

    #[test]
    fn near_means_a_plausible_misspelling() {
        assert_eq!(nearest("dleta", ["delta", "gamma"]), Some("delta"));
        assert_eq!(nearest("r_n", ["r_b", "nics"]), Some("r_b"));
        assert_eq!(nearest("xy", ["ab"]), None);
        assert_eq!(nearest("delta", ["delta"]), None);
    }
}
