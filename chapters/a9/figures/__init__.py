"""What chapter A9's lessons draw and compute from the shipped evaluation (plotly figures work without a kernel).

``task_set``    A9·1: the task set (its shape, one task shown whole) and the results of the shipped runs per task and design
``passrate``    A9·2: pass rates with their intervals, pass@k, the spread across seeds, one sweep against many
``price``       A9·3: tokens, cache reads and dollars per solved task, under llama.cpp and five providers' rules
"""
