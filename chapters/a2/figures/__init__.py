"""What chapter A2's lessons draw (plotly figures work without a kernel).

``shapes``   A2·1: the rendered tool block, and malformed calls per 100 under each shape
``outputs``  A2·3: a big tool result three ways; one change by rewrite or by edit
"""
