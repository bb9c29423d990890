"""Chapter A9's lab.

``evaluate``    labs/a9/evaluate.ipynb: pick tasks, designs and seeds from recorded runs (the shipped
                evaluation, or your own ``python -m prefixlab eval`` folder); pass rate, interval, price per solved task
"""
