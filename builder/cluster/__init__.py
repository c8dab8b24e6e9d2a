"""Builds on a Dask cluster (`tablebase build --workers N / --scheduler ADDR`): the public entry.

executor.py drives the build from the client (`open_cluster`, `DaskExecutor`); tasks.py holds
the tasks its workers run, one a code range a tier; cuts.py where each tier is cut into
ranges; shared_table.py the lookup table the workers of one machine share. Dask pickles the
tasks by module path, so a worker imports them from here as the client does. Dask itself is
imported only when a cluster is opened.
"""
from __future__ import annotations

from tablebase.builder.cluster.executor import ClusterError, DaskExecutor, open_cluster

__all__ = ["ClusterError", "DaskExecutor", "open_cluster"]
