"""Checkers of chapter A4's exercises, one module per lesson.

``a4_1``  A4·1 前缀缓存从头讲
``a4_2``  A4·2 顶部放什么
``a4_3``  A4·3 改写历史
"""
