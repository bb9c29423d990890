"""Chapter A5's figures: one module per lesson, each a function from a recording to a plotly figure
that works in the built page without a kernel."""
