"""Game review: a finished game analysed move by move on the AI's workers, stored, and read as
an evaluation graph, each move's verdict (inaccuracy, mistake, blunder) with the better move and
its line, and each player's accuracy (docs/web.md, "Game review")."""
