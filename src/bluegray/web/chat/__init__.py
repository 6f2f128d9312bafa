"""Chat in each game: the players' room and the spectators' room, canned quick messages, mutes,
reports and the moderators' mute."""
