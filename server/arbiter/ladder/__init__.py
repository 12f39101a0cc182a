"""The ladder: ladders and their bots, rated results, the rating-aware scheduler, standings."""
