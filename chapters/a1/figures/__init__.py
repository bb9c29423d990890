"""What chapter A1's lessons draw from their recording.

``loop``   rounds of a session (what the model asked for, prompt, read, evaluated), tokens per round
           as stacked bars, and a replay of a recorded session on the server's own clock (A1·3's time limit)
"""
