"""What chapter A9's lessons draw and compute from the shipped evaluation.

``task_set``  A9·1: the task set (its shape, one task shown whole) and the results of the shipped runs per task and design
"""
