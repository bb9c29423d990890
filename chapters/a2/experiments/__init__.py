"""Chapter A2's experiments.

``call_shapes``   A2·1  malformed tool calls per 100 under the native and the text shape, live model;
                        one bounded retry and its cost. A measurement written to data/a2/ (not a
                        recording): ``python -m chapters.a2.experiments.call_shapes run`` then ``summary``
"""
EXPERIMENTS: list = []
