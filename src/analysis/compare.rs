//! One hierarchy, several ways to run it: each [`Variant`] sets the fine
//! partition, the coarse rule, the placement, the allocation's nodes on
//! the machine and the strategy, and is
//! analysed like `analyze` does (spmv and spgemm; ptap is the same under
//! every strategy and is left out). A setup that depends on the ranks
//! (hypre's, RAPtor's: [`Rebuild`]) sets the hierarchy up again for a
//! variant of another fine partition, as the solver would.

use clap::ValueEnum;

use super::{analyze, Analysis, AnalysisError, Options};
use crate::amg::{self, BuildError, Hierarchy};
use crate::comm::node_aware::Strategy;
use crate::machine::{Allocation, Machine, Placement};
use crate::model::Model;
use crate::partition::methods::MethodOptions;
use crate::partition::{CoarseRule, Fine, Layout, PartitionError};

/// One way to run the hierarchy.
#[derive(Clone, Debug, PartialEq)]
pub struct Variant {
    /// How it was written, `key=value,...`.
    pub name: String,
    /// Fine partition (default `contiguous`).
    pub partition: Fine,
    /// Exchange strategy (default `standard`).
    pub strategy: Strategy,
    /// Placement, if not the machine's.
    pub placement: Option<Placement>,
    /// The allocation's nodes on the machine, if not the machine's.
    pub allocation: Option<Allocation>,
    /// Coarse levels (default `inherit`).
    pub coarse: CoarseRule,
}

/// A `--variants` that does not parse.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum VariantError {
    /// Not `key=value`.
    #[error("request.variants: '{0}' is not key=value")]
    NotKeyValue(String),
    /// A key that is not one of the four.
    #[error(
        "request.variants: unknown key '{0}' (known: partition, strategy, placement, allocation, coarse-partition)"
    )]
    UnknownKey(String),
    /// A value its key does not take.
    #[error("request.variants: unknown {key} '{value}' (known: {known})")]
    UnknownValue {
        /// The key.
        key: &'static str,
        /// The value given.
        value: String,
        /// The values it takes.
        known: String,
    },
    /// A partition that is neither a method nor an existing file.
    #[error("request.variants: partition '{value}' is neither a method ({known}) nor a file")]
    Partition {
        /// The value given.
        value: String,
        /// The methods.
        known: String,
    },
    /// Nothing given.
    #[error("request.variants: no variant given")]
    Empty,
    /// A partition that renumbers the rows before the hierarchy exists.
    #[error("request.variants: partition=mfem renumbers the rows before the hierarchy is built, so it cannot share one; run an analysis with request.partition mfem")]
    MeshPartition,
}

fn value<T: ValueEnum>(key: &'static str, v: &str) -> Result<T, VariantError> {
    T::from_str(v, false).map_err(|_| VariantError::UnknownValue {
        key,
        value: v.to_string(),
        known: crate::value_names::<T>(),
    })
}

/// Variants separated by `;`, each a `,`-separated list of `key=value`
/// with keys `partition` (a method or a file, which must exist),
/// `strategy`, `placement` (`random` with seed 0), `allocation`
/// (`contiguous`, `random` or `random:SEED`), `coarse-partition`.
pub fn parse_variants(spec: &str) -> Result<Vec<Variant>, VariantError> {
    let mut out = Vec::new();
    for v in spec.split(';').map(str::trim).filter(|v| !v.is_empty()) {
        let mut var = Variant {
            name: v.to_string(),
            partition: Fine::Method(crate::partition::methods::Method::Contiguous),
            strategy: Strategy::Standard,
            placement: None,
            allocation: None,
            coarse: CoarseRule::Inherit,
        };
        for kv in v.split(',').map(str::trim) {
            let (k, val) = kv
                .split_once('=')
                .ok_or_else(|| VariantError::NotKeyValue(kv.to_string()))?;
            let val = val.trim();
            match k.trim() {
                "partition" => {
                    var.partition = Fine::parse(val);
                    if var.partition == Fine::Method(crate::partition::methods::Method::Mfem) {
                        return Err(VariantError::MeshPartition);
                    }
                    if let Fine::File(path) = &var.partition {
                        if !path.exists() {
                            return Err(VariantError::Partition {
                                value: val.to_string(),
                                known: crate::value_names::<crate::partition::methods::Method>(),
                            });
                        }
                    }
                }
                "strategy" => var.strategy = value("strategy", val)?,
                "placement" => var.placement = Some(value("placement", val)?),
                "allocation" => {
                    let (name, seed) = match val.split_once(':') {
                        Some((n, s)) => (n, Some(s)),
                        None => (val, None),
                    };
                    let a: Allocation = value("allocation", name)?;
                    let seed = match seed {
                        None => 0,
                        Some(s) => s.parse().map_err(|_| VariantError::UnknownValue {
                            key: "allocation",
                            value: val.to_string(),
                            known: "contiguous, random, random:SEED".into(),
                        })?,
                    };
                    var.allocation = Some(a.with_seed(seed));
                }
                "coarse-partition" => var.coarse = value("coarse-partition", val)?,
                other => return Err(VariantError::UnknownKey(other.to_string())),
            }
        }
        out.push(var);
    }
    if out.is_empty() {
        return Err(VariantError::Empty);
    }
    Ok(out)
}

impl Variant {
    /// `base` with this variant's placement and allocation.
    pub fn machine(&self, base: &Machine) -> Machine {
        let mut m = base.clone();
        m.placement = self.placement.unwrap_or(m.placement);
        m.allocation = self.allocation.unwrap_or(m.allocation);
        m
    }
}

/// A variant and what it gives.
#[derive(Clone, Debug)]
pub struct VariantAnalysis {
    /// The variant.
    pub variant: Variant,
    /// Its levels.
    pub analysis: Analysis,
}

/// A variant that cannot be run.
#[derive(Debug, thiserror::Error)]
pub enum CompareError {
    /// Its partition cannot be had.
    #[error(transparent)]
    Partition(#[from] PartitionError),
    /// Its layout does not fit.
    #[error(transparent)]
    Analysis(#[from] AnalysisError),
    /// Its hierarchy cannot be set up.
    #[error(transparent)]
    Build(#[from] BuildError),
}

/// How to set the hierarchy up again for a variant whose fine partition
/// is not the one it was built on, when the setup depends on the ranks
/// ([`amg::Options::uses_ranks`]).
#[derive(Clone, Copy, Debug)]
pub struct Rebuild<'a> {
    /// The setup.
    pub amg: &'a amg::Options,
    /// The fine partition the hierarchy was built on.
    pub built_on: &'a Fine,
}

/// Every variant on `base` (whose placement a variant may replace),
/// charged with `model`; partition methods use `methods`.
pub fn compare(
    h: &Hierarchy,
    base: &Machine,
    variants: &[Variant],
    model: &Model,
    methods: &MethodOptions,
    rebuild: Option<Rebuild>,
    mut progress: impl FnMut(&Variant),
) -> Result<Vec<VariantAnalysis>, CompareError> {
    let mut out = Vec::new();
    let o = Options {
        model: model.clone(),
        strategy: Strategy::Standard,
        ops: crate::comm::Ops::of(&[crate::comm::Op::Spmv, crate::comm::Op::Spgemm]),
        keep_patterns: false,
        cycle: None,
    };
    for v in variants {
        progress(v);
        out.push(VariantAnalysis {
            variant: v.clone(),
            analysis: analyze_variant(h, base, v, &o, methods, rebuild)?,
        });
    }
    Ok(out)
}

/// `v` on `base` (whose placement `v` may replace): its fine partition by
/// `methods`, its coarse rule, analysed with `o` under `v`'s strategy; on
/// a hierarchy set up again on its partition when `rebuild` says so.
pub(crate) fn analyze_variant(
    h: &Hierarchy,
    base: &Machine,
    v: &Variant,
    o: &Options,
    methods: &MethodOptions,
    rebuild: Option<Rebuild>,
) -> Result<Analysis, CompareError> {
    let m = v.machine(base);
    let o = Options {
        strategy: v.strategy,
        keep_patterns: false,
        ..o.clone()
    };
    if let Some(r) = rebuild.filter(|r| *r.built_on != v.partition) {
        let a = &h.levels[0].a;
        let part = v.partition.partition(a, &m.owners(), methods)?;
        let mut own = amg::build_owned_by(
            crate::matrix::Csr::clone(a),
            &part.owner,
            part.ranks,
            r.amg,
            &mut |_, _| {},
        )?;
        own.make_whole();
        let layout = Layout::new(&own, part, v.coarse).spread(&m);
        return Ok(analyze(&own, &layout, &m, &o)?);
    }
    let layout = Layout::on(h, &v.partition, v.coarse, &m, methods)?;
    Ok(analyze(h, &layout, &m, &o)?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn variants_parse_and_name_what_is_wrong() {
        let v = parse_variants("partition=metis,strategy=node-aware-3; placement=random").unwrap();
        assert_eq!(v.len(), 2);
        assert_eq!(v[0].name, "partition=metis,strategy=node-aware-3");
        assert_eq!(v[0].strategy, Strategy::NodeAware3);
        assert_eq!(v[1].placement, Some(Placement::Random { seed: 0 }));
        let v = parse_variants("allocation=contiguous;allocation=random:7").unwrap();
        assert_eq!(v[0].allocation, Some(Allocation::Contiguous));
        assert_eq!(v[1].allocation, Some(Allocation::Random { seed: 7 }));
        let e = |s: &str| parse_variants(s).unwrap_err().to_string();
        assert_eq!(
            e("strategy=teleport"),
            "request.variants: unknown strategy 'teleport' (known: standard, node-aware-2, node-aware-3, gpu-aware, staged, staged-node-aware, split)"
        );
        assert!(e("colour=red").contains("unknown key 'colour'"));
        assert!(e("allocation=random:x").contains("random:SEED"));
        assert!(e("allocation=packed").contains("(known: contiguous, random)"));
        assert!(e("partition=nowhere.part").contains("neither a method"));
        assert!(e("metis").contains("'metis' is not key=value"));
        assert_eq!(e(" ; "), "request.variants: no variant given");
        assert!(e("coarse-partition=up").contains("(known: inherit, rebalance)"));
        assert!(e("partition=mfem").contains("run an analysis with request.partition mfem"));
    }
}
