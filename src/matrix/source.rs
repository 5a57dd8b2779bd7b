//! Where a matrix comes from: a Matrix Market file, or `gen:KIND:N`.

use std::path::PathBuf;

use super::gen::{kind_names, Kind, Problem, ProblemError};
use super::io::{self, ReadError};
use super::{permute, Matrix};

/// An input: a file, or a generator call.
#[derive(Clone, Debug, PartialEq)]
pub enum Source {
    /// A matrix file ([`io::read`]).
    File(PathBuf),
    /// `gen:KIND:N`.
    Gen(Problem),
}

/// Errors of loading a matrix; each displays as one line naming the input.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    /// The file does not read.
    #[error(transparent)]
    Read(#[from] ReadError),
    /// A `gen:` spec that does not parse.
    #[error("generator spec '{input}': {problem}")]
    Spec {
        /// The spec given.
        input: String,
        /// What is wrong.
        problem: SpecProblem,
    },
    /// A matrix `--permute` cannot apply to.
    #[error("{name}: request.permute needs a square matrix, this one is {rows} x {cols}")]
    PermuteNotSquare {
        /// The matrix.
        name: String,
        /// Rows.
        rows: usize,
        /// Columns.
        cols: usize,
    },
}

/// What is wrong with a `gen:KIND:N` spec.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum SpecProblem {
    /// Not three fields.
    #[error("expected gen:KIND:N with KIND one of {0}")]
    Syntax(String),
    /// An unknown kind.
    #[error("unknown kind '{kind}' (known: {known})")]
    Kind {
        /// The kind given.
        kind: String,
        /// The kinds.
        known: String,
    },
    /// A size that is not a number.
    #[error("size '{0}' is not a positive integer")]
    Size(String),
    /// A parameter that is not `epsilon=E` or `angle=DEGREES`.
    #[error("'{0}' is not a parameter (expected epsilon=E or angle=DEGREES after gen:aniso2d:N)")]
    Parameter(String),
    /// Parameters the generator refuses.
    #[error(transparent)]
    Problem(#[from] ProblemError),
}

impl Source {
    /// `gen:KIND:N` is a generator, anything else a file path. aniso2d
    /// takes `:epsilon=E` and `:angle=DEGREES` after `N` (what
    /// `--epsilon` and `--angle` add, and what [`Problem::spec`] writes).
    pub fn parse(input: &str) -> Result<Source, LoadError> {
        let Some(spec) = input.strip_prefix("gen:") else {
            return Ok(Source::File(PathBuf::from(input)));
        };
        let bad = |problem: SpecProblem| LoadError::Spec {
            input: input.to_string(),
            problem,
        };
        let (kind, n) = spec
            .split_once(':')
            .ok_or_else(|| bad(SpecProblem::Syntax(kind_names())))?;
        let kind = Kind::parse(kind).ok_or_else(|| {
            bad(SpecProblem::Kind {
                kind: kind.to_string(),
                known: kind_names(),
            })
        })?;
        let mut fields = n.split(':');
        let n = fields.next().unwrap_or_default();
        let n: usize = n
            .parse()
            .map_err(|_| bad(SpecProblem::Size(n.to_string())))?;
        let mut problem = Problem::new(kind, n);
        for field in fields {
            let (key, value) = field.split_once('=').unwrap_or((field, ""));
            match (key, value.parse::<f64>()) {
                ("epsilon", Ok(v)) => problem.epsilon = v,
                ("angle", Ok(v)) => problem.angle = v,
                _ => return Err(bad(SpecProblem::Parameter(field.to_string()))),
            }
        }
        problem.validate().map_err(|e| bad(e.into()))?;
        Ok(Source::Gen(problem))
    }

    /// Read or generate the matrix; `permute` applies a random symmetric
    /// node permutation with that seed.
    pub fn load(&self, permute: Option<u64>) -> Result<Matrix, LoadError> {
        let mut m = match self {
            Source::File(path) => io::read(path)?,
            Source::Gen(p) => p.generate().map_err(|e| LoadError::Spec {
                input: p.spec(),
                problem: e.into(),
            })?,
        };
        if let Some(seed) = permute {
            let nodes = m.csr.rows() / m.block_size;
            if m.csr.rows() != m.csr.cols() {
                return Err(LoadError::PermuteNotSquare {
                    name: m.name,
                    rows: m.csr.rows(),
                    cols: m.csr.cols(),
                });
            }
            let order = permute::random_node_order(nodes, seed);
            m.csr = permute::permute_symmetric(&m.csr, m.block_size, &order);
            m.name = format!("{} --permute {seed}", m.name);
            m.numbering = super::Numbering::Renumbered;
        }
        Ok(m)
    }
}

/// `spec` with aniso2d's `epsilon` and `angle` (the flags `--epsilon`
/// and `--angle`) appended; refused, naming the flag, when given for an
/// input that is not `gen:aniso2d:N`.
pub fn with_anisotropy(
    spec: &str,
    epsilon: Option<f64>,
    angle: Option<f64>,
) -> Result<String, String> {
    let mut out = spec.to_string();
    for (flag, key, value) in [
        ("--epsilon", "epsilon", epsilon),
        ("--angle", "angle", angle),
    ] {
        let Some(v) = value else { continue };
        if !spec.starts_with("gen:aniso2d:") {
            return Err(format!(
                "{flag} applies to the generator gen:aniso2d:N, not to {spec}"
            ));
        }
        out += &format!(":{key}={v}");
    }
    Ok(out)
}

/// "path/beam_tet_2k.mtx.gz" -> "beam_tet_2k": a matrix's name without
/// folders and Matrix Market extensions, for titles and folder names.
pub fn base_name(name: &str) -> &str {
    let name = name.rsplit('/').next().unwrap_or(name);
    name.trim_end_matches(".gz").trim_end_matches(".mtx")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_specs_and_paths() {
        assert_eq!(
            Source::parse("gen:elasticity3d:40").unwrap(),
            Source::Gen(Problem::new(Kind::Elasticity3d, 40))
        );
        assert_eq!(
            Source::parse("a/b.mtx").unwrap(),
            Source::File("a/b.mtx".into())
        );
        let e = Source::parse("gen:cube:3").unwrap_err().to_string();
        assert_eq!(e, "generator spec 'gen:cube:3': unknown kind 'cube' (known: elasticity3d, beam, poisson3d, poisson3d-27, poisson2d, aniso2d)");
        let e = Source::parse("gen:poisson3d:x").unwrap_err().to_string();
        assert!(e.contains("size 'x' is not a positive integer"));
        assert!(Source::parse("gen:poisson3d")
            .unwrap_err()
            .to_string()
            .contains("expected gen:KIND:N"));
        assert!(Source::parse("gen:poisson3d:0")
            .unwrap_err()
            .to_string()
            .contains("at least 1"));
    }
}
