"""One module per section of the report; each has run(ctx) -> SectionResult."""
