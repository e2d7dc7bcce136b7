"""The design report (`pnp report`, and the preview's report page): tables.py charts every table's numbers and
values, the views game.yaml declares and each constraint's margin; simulation.py reads what `pnp simulate`
measured (output/<game>/simulation.json) and says it as blocks of the same report."""
