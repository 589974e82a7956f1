"""Scoring past one machine, on an engine that already shards data (Ray Data, Dask, Spark).

``columnar`` is the entry point such an engine calls on each batch (an Arrow record batch of records in,
the verdict columns and the batch's partial summary out), and ``summary_of`` merges the partial
summaries into the report a local run gives. ``on_ray`` is ``assay score --ray``: a file read by assay's
own reader, scored through Ray Data's ``map_batches``, its summary merged and its --out written.
"""
