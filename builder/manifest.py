"""The resume manifest of one build, typed: what the build is (spec, root, table, layout, the
tool that began it), how far it got (the tiers enumerated, where solving stands, each solved
tier's values and checksum), and the files its work directory holds (builder/workdir.py).

On disk it is manifest.json, an object keyed by the field names with plies as strings:

    {"version": 4, "spec": "3x3k3", "root": "", "tool_version": "0.1.0", "table": "...",
     "layout": "packed", "tiers": [{"ply": 0, "canonical": 1, ...}], "enumerated": true,
     "solved_from": 3, "values": {"3": [w, d, l]}, "checksums": {"3": "hex"},
     "files": {"codes_3.bin": [crc32, bytes]}, "parts": {"codes_3": 2},
     "ranges": {"3": {"cuts": [...], "sizes": [...], "firsts": [...]}},
     "stages": {"enumerate": {"seconds": 0.1, "peak_bytes": 123}}, "spilled_runs": 0}

A manifest of another `version` is never resumed (builder/pipeline.py starts over), so the
form changes only with MANIFEST_VERSION. Every key but `version` may be missing (they were
added on first use before this module): each then reads as empty.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

MANIFEST_VERSION = 4


@dataclass(frozen=True)
class TierCounts:
    """Counts of one tier: canonical positions, and positions counted with all their images."""

    ply: int
    canonical: int
    reachable: int
    terminal: int
    terminal_canonical: int

    def to_dict(self) -> dict[str, int]:
        """A JSON-ready dict."""
        return asdict(self)


@dataclass
class StageFigures:
    """Wall seconds and peak resident bytes of one stage."""

    seconds: float = 0.0
    peak_bytes: int = 0


@dataclass
class TierRanges:
    """How a cluster cut one tier into code ranges (builder/cluster/): the codes it cut at,
    each range's count of positions and each range's first code (None: an empty range)."""

    cuts: list[int]
    sizes: list[int]
    firsts: list[int | None]


@dataclass
class Manifest:
    """The resume manifest of one build (see the module's docstring for its JSON form).

    Tier plies count from the table's root (0: the root itself), as the tier files do.
    """

    version: int = MANIFEST_VERSION
    spec: str = ""
    root: str = ""  # the Root's key ("" for the whole board)
    tool_version: str = ""
    table: str = ""  # the stored table the build writes
    layout: str = ""
    tiers: list[TierCounts] = field(default_factory=list)
    enumerated: bool = False
    # The lowest solved tier (None: none yet; 0: solving is done).
    solved_from: int | None = None
    values: dict[int, tuple[int, int, int]] = field(default_factory=dict)  # wins, draws, losses
    checksums: dict[int, str | None] = field(default_factory=dict)  # packed: each tier's, hex
    files: dict[str, tuple[int, int]] = field(default_factory=dict)  # name -> CRC-32, bytes
    parts: dict[str, int] = field(default_factory=dict)  # "KIND_PLY" -> part files (cluster)
    ranges: dict[int, TierRanges] = field(default_factory=dict)  # ply -> its cuts (cluster)
    stages: dict[str, StageFigures] = field(default_factory=dict)  # finished stages
    spilled_runs: int = 0  # sorted runs enumeration spilled to disk

    def to_json(self) -> dict[str, Any]:
        """The manifest as manifest.json holds it."""
        return {
            "version": self.version, "spec": self.spec, "root": self.root,
            "tool_version": self.tool_version, "table": self.table, "layout": self.layout,
            "tiers": [t.to_dict() for t in self.tiers], "enumerated": self.enumerated,
            "solved_from": self.solved_from,
            "values": {str(ply): list(v) for ply, v in self.values.items()},
            "checksums": {str(ply): c for ply, c in self.checksums.items()},
            "files": {name: list(f) for name, f in self.files.items()},
            "parts": dict(self.parts),
            "ranges": {str(ply): asdict(r) for ply, r in self.ranges.items()},
            "stages": {name: asdict(s) for name, s in self.stages.items()},
            "spilled_runs": self.spilled_runs,
        }

    @classmethod
    def from_json(cls, data: Any) -> Manifest:
        """The manifest manifest.json held; ValueError if it is not one."""
        try:
            return cls(
                version=data["version"], spec=data.get("spec", ""), root=data.get("root", ""),
                tool_version=data.get("tool_version", ""), table=data.get("table", ""),
                layout=data.get("layout", ""),
                tiers=[TierCounts(**t) for t in data.get("tiers", [])],
                enumerated=data.get("enumerated", False),
                solved_from=data.get("solved_from"),
                values={int(ply): tuple(v) for ply, v in data.get("values", {}).items()},
                checksums={int(ply): c for ply, c in data.get("checksums", {}).items()},
                files={name: tuple(f) for name, f in data.get("files", {}).items()},
                parts=dict(data.get("parts", {})),
                ranges={int(ply): TierRanges(**r) for ply, r in data.get("ranges", {}).items()},
                stages={name: StageFigures(**s) for name, s in data.get("stages", {}).items()},
                spilled_runs=data.get("spilled_runs", 0))
        except (KeyError, TypeError, AttributeError) as e:
            raise ValueError(f"not a build manifest: {e!r:.80}") from e
