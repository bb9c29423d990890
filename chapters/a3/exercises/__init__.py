"""Checkers of chapter A3's exercises, one module per lesson.

``a3_1``  A3·1 路径与命令
``a3_2``  A3·2 审批
``a3_3``  A3·3 提示注入"""
