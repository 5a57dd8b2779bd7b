//! Where a matrix comes from: a Matrix Market file, or `gen:KIND:N`.

use std::path::PathBuf;

use super::gen::{kind_names, Kind, Problem};
use super::mtx_read::{self, ReadError};
use super::{permute, Matrix};

#[derive(Clone, Debug, PartialEq)]
pub enum Source {
    File(PathBuf),
    Gen(Problem),
}

/// Errors of loading a matrix; each displays as one line naming the input.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    #[error(transparent)]
    Read(#[from] ReadError),
    #[error("{0}")]
    Spec(String),
}

impl Source {
    /// `gen:KIND:N` is a generator, anything else a file path.
    pub fn parse(input: &str) -> Result<Source, LoadError> {
        let Some(spec) = input.strip_prefix("gen:") else {
            return Ok(Source::File(PathBuf::from(input)));
        };
        let bad = |why: String| LoadError::Spec(format!("generator spec '{input}': {why}"));
        let (kind, n) = spec.split_once(':').ok_or_else(|| {
            bad(format!(
                "expected gen:KIND:N with KIND one of {}",
                kind_names()
            ))
        })?;
        let kind = Kind::parse(kind)
            .ok_or_else(|| bad(format!("unknown kind '{kind}' (known: {})", kind_names())))?;
        let n: usize = n
            .parse()
            .map_err(|_| bad(format!("size '{n}' is not a positive integer")))?;
        let problem = Problem::new(kind, n);
        problem.validate().map_err(bad)?;
        Ok(Source::Gen(problem))
    }

    /// Read or generate the matrix; `permute` applies a random symmetric
    /// node permutation with that seed.
    pub fn load(&self, permute: Option<u64>) -> Result<Matrix, LoadError> {
        let mut m = match self {
            Source::File(path) => mtx_read::read(path)?,
            Source::Gen(p) => p.generate().map_err(LoadError::Spec)?,
        };
        if let Some(seed) = permute {
            let nodes = m.csr.rows() / m.block_size;
            if m.csr.rows() != m.csr.cols() {
                return Err(LoadError::Spec(format!(
                    "{}: --permute needs a square matrix, this one is {} x {}",
                    m.name,
                    m.csr.rows(),
                    m.csr.cols()
                )));
            }
            let order = permute::random_node_order(nodes, seed);
            m.csr = permute::permute_symmetric(&m.csr, m.block_size, &order);
            m.name = format!("{} --permute {seed}", m.name);
        }
        Ok(m)
    }
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
        assert_eq!(e, "generator spec 'gen:cube:3': unknown kind 'cube' (known: elasticity3d, poisson3d, poisson3d-27, poisson2d)");
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
