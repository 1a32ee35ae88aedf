"""The pieces of bench/run: options, processes, archpool runs, one module per section, the report."""
