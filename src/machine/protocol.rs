//! Message protocols by size (docs/model.md): short below the machine's eager
//! threshold (500 bytes on Blue Waters), rendezvous from its rendezvous
//! threshold (8000), eager between; and the nine locality x protocol
//! classes that Table 1 gives parameters for.

use serde::Serialize;

use super::{Locality, Params};

/// The MPI protocol a message of a given size uses.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Protocol {
    /// Below `eager_threshold` bytes.
    #[default]
    Short,
    /// From `eager_threshold` to below `rendezvous_threshold` bytes.
    Eager,
    /// From `rendezvous_threshold` bytes.
    Rend,
}

/// The protocols, in order.
pub const PROTOCOLS: [Protocol; 3] = [Protocol::Short, Protocol::Eager, Protocol::Rend];

impl Protocol {
    /// The protocol of a message of `bytes` under `params`' thresholds.
    #[inline]
    pub fn of(bytes: u64, params: &Params) -> Protocol {
        Protocol::by_thresholds(bytes, [params.eager_threshold, params.rendezvous_threshold])
    }

    /// The protocol of a message of `bytes` given `[eager, rendezvous]`
    /// thresholds.
    #[inline]
    pub(crate) fn by_thresholds(bytes: u64, [eager, rendezvous]: [u64; 2]) -> Protocol {
        if bytes < eager {
            Protocol::Short
        } else if bytes < rendezvous {
            Protocol::Eager
        } else {
            Protocol::Rend
        }
    }

    /// `short`, `eager` or `rend`.
    pub fn name(self) -> &'static str {
        match self {
            Protocol::Short => "short",
            Protocol::Eager => "eager",
            Protocol::Rend => "rend",
        }
    }
}

/// A locality and a protocol: one row and column group of Table 1.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Class {
    /// Where the message goes.
    pub locality: Locality,
    /// How it is sent.
    pub protocol: Protocol,
}

impl Class {
    /// `locality * 3 + protocol`, below the machine's
    /// [`super::Places::classes`].
    #[inline]
    pub fn index(self) -> usize {
        self.locality.index() * 3 + self.protocol as usize
    }

    /// The class of index `k` (inverse of [`Class::index`]).
    pub fn of_index(k: usize) -> Class {
        Class {
            locality: Locality((k / 3) as u8),
            protocol: PROTOCOLS[k % 3],
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thresholds_and_classes() {
        let p = Params::bluewaters();
        assert_eq!(Protocol::of(499, &p), Protocol::Short);
        assert_eq!(Protocol::of(500, &p), Protocol::Eager);
        assert_eq!(Protocol::of(7999, &p), Protocol::Eager);
        assert_eq!(Protocol::of(8000, &p), Protocol::Rend);
        for k in 0..12 {
            assert_eq!(Class::of_index(k).index(), k);
        }
    }
}
