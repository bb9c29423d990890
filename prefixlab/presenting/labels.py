"""The Chinese names the book, the labs and the figures give to the experiment's groups and sessions."""

GROUP_LABELS = {"refresh": "刷新组", "frozen": "冻结组", "append": "追加组", "after-tools": "后置组",
                "select": "挑选组", "retrieve": "检索组"}  # T14 (side lesson A6·R)
KIND_LABELS = {"main": "主会话", "fork": "分叉", "counterfactual": "录制的反事实", "live": "模型自己驱动",
               "replay": "重放(原样再发一遍)"}
