"""High Voltage reaction bots and the simulated-time arena."""

from __future__ import annotations

import json
import statistics

import pytest

from engine.highvoltage import arena as A
from engine.highvoltage import rules as H
from engine.highvoltage.bots import (
    HV_BOT_NAMES,
    REACTION_SECONDS,
    RELOOK_SECONDS,
    SCAN_SECONDS,
    SMART,
    SPOT_CHANCE,
    V1,
    ReactionBot,
    chain_key,
    chain_length,
    make_hv_bot,
)
from engine.highvoltage.rules import Draw, Face, Play, Stuck


def F(code: str) -> Face:
    return Face.parse(code)


def view(hand=("7/1", "1/1"), top="5/2", pile=3, stuck=False, phase="play", seat=0, top_no=7) -> H.HighVoltageView:
    return H.HighVoltageView(
        seat=seat,
        players=2,
        phase=phase,
        hand=None if phase == "countdown" else tuple(F(c) for c in hand),
        hand_sizes=(len(hand), 4),
        pile_counts=(pile, 10),
        top=F(top),
        top_no=top_no,
        discard_count=8,
        stuck=(stuck, False),
        out=(False, False),
        plays=6,
        flips=0,
        winner=None,
        places=None,
        reason="",
    )


# ---------------------------------------------------------------------------
# Bots


class TestBots:
    def test_names_and_levels(self):
        assert HV_BOT_NAMES == ("slow", "medium", "fast")
        assert REACTION_SECONDS == {"slow": 2.5, "medium": 1.5, "fast": 0.8}
        with pytest.raises(ValueError, match="unknown High Voltage bot 'random'"):
            make_hv_bot("random")

    def test_plays_a_fitting_card_aimed_at_the_top_it_saw(self):
        delay, action = make_hv_bot("fast", 1).decide(view())
        assert action == Play(0, F("7/1"), F("5/2"), 7)
        assert delay > 0

    def test_draws_when_nothing_fits(self):
        assert make_hv_bot("slow", 1).decide(view(hand=("1/1", "2/1")))[1] == Draw(0)

    def test_declares_stuck_when_out_of_options_once(self):
        bot = make_hv_bot("medium", 1)
        assert bot.decide(view(hand=("1/1", "2/1"), pile=0))[1] == Stuck(0)
        assert bot.decide(view(hand=("1/1", "2/1"), pile=0, stuck=True)) == (0.0, None)

    def test_nothing_to_do_in_a_countdown_or_as_a_spectator(self) -> None:
        bot = make_hv_bot("fast", 1)
        assert bot.decide(view(phase="countdown")) == (0.0, None)
        assert bot.decide(view(seat=None)) == (0.0, None)  # a spectator's view

    def test_prefers_a_card_that_keeps_a_chain_going(self):
        # on 5 (±2): 3 (±1) is followed by the 2 in hand, 7 (±3) by nothing
        for seed in range(10):
            bot = ReactionBot("fast", 0.8, seed, spot=1.0)
            assert bot.decide(view(hand=("7/3", "3/1", "2/1")))[1].card == F("3/1")

    def test_choose_card_none_when_nothing_fits(self):
        assert make_hv_bot("fast").choose_card((F("1/1"),), F("5/2")) is None

    @pytest.mark.parametrize("name", HV_BOT_NAMES)
    def test_reaction_times_with_jitter(self, name):
        # a look at a new top: the reaction time plus reading each card of the hand
        bot = make_hv_bot(name, 3)
        delays = [bot.decide(view(top_no=n))[0] for n in range(2000)]
        median = statistics.median(delays)
        expected = REACTION_SECONDS[name] + 2 * SCAN_SECONDS
        assert abs(median - expected) < 0.06 * expected
        assert min(delays) > 0 and len(set(delays)) == len(delays)

    def test_a_second_look_at_the_same_top_reads_only_the_new_cards(self):
        bot = ReactionBot("slow", 2.5, 4, spot=1.0)
        assert bot.decide(view(hand=("1/1", "2/1")))[1] == Draw(0)
        delays = []
        for _ in range(400):
            bot._looked = (7, (F("1/1"), F("2/1")))
            delay, action = bot.decide(view(hand=("1/1", "2/1", "7/1")))
            assert action == Play(0, F("7/1"), F("5/2"), 7)
            delays.append(delay)
        expected = RELOOK_SECONDS + SCAN_SECONDS
        assert abs(statistics.median(delays) - expected) < 0.08 * expected

    def test_an_overlooked_card_stays_overlooked_until_the_top_changes(self):
        spotted = 0
        for seed in range(1000):
            bot = make_hv_bot("medium", seed)
            first = bot.decide(view())[1]
            if isinstance(first, Play):
                spotted += 1
                continue
            assert first == Draw(0)  # overlooked the 7: draws instead
            assert bot.decide(view(hand=("7/1", "1/1", "2/3")))[1] == Draw(0)  # still overlooked
        assert abs(spotted / 1000 - SPOT_CHANCE) < 0.04
        bot = ReactionBot("medium", 1.5, 1, spot=1.0)
        bot._looked = (7, (F("7/1"), F("1/1")))
        assert isinstance(bot.decide(view(top_no=8))[1], Play)  # a new top: a fresh look

    def test_seeded(self):
        a, b = make_hv_bot("fast", 9), make_hv_bot("fast", 9)
        assert [a.decide(view())[0] for _ in range(5)] == [b.decide(view())[0] for _ in range(5)]
        assert isinstance(a, ReactionBot)


# ---------------------------------------------------------------------------
# Matches in simulated time


class TestRunMatch:
    @pytest.mark.parametrize("names", [("fast", "slow"), ("slow", "medium", "fast"), ("fast",) * 4])
    def test_a_match_ends_with_a_winner_and_places(self, names):
        r = A.run_match(names, 5)
        assert r.reason == "last card" and r.winner is not None
        assert r.places[r.winner] == 1 and len(r.places) == len(names)
        assert r.cards_left[r.winner] == 0
        assert r.refused == 0  # bots never send anything but plays that may be late
        assert r.seconds > 0 and r.plays > 0 and r.actions == len(r.log)

    def test_replay_from_seed_and_log_reproduces_it(self):
        for seed in range(6):
            names = ("fast", "medium", "slow")[: 2 + seed % 2]
            r = A.run_match(names, seed)
            s = H.replay(seed, len(names), r.log)
            assert s.over and s.winner == r.winner and s.places == r.places and s.plays == r.plays

    def test_deterministic(self):
        assert A.run_match(("fast", "fast"), 3) == A.run_match(("fast", "fast"), 3)

    def test_races_are_refused_as_too_slow(self):
        r = A.run_match(("fast", "fast", "fast"), 1)
        assert r.too_slow > 0

    def test_faster_wins_more(self):
        s = A.run_arena(("slow", "fast"), 20, seed=100)
        assert s.wins[1] > s.wins[0]


class TestArena:
    def test_summary_and_seat_rotation(self):
        seen = []
        s = A.run_arena(("slow", "medium", "fast"), 6, seed=2, on_result=seen.append)
        assert s.matches == 6 and sum(s.wins) + s.no_winner == 6
        assert [r.seed for r in seen] == list(range(2, 8))
        assert {r.entrants for r in seen} == {(0, 1, 2), (1, 2, 0), (2, 0, 1)}
        for r in seen:
            assert r.players == tuple(("slow", "medium", "fast")[e] for e in r.entrants)
        assert s.wins_by_level() == {"slow": s.wins[0], "medium": s.wins[1], "fast": s.wins[2]}

    def test_wins_by_level_adds_up_repeated_names(self):
        s = A.run_arena(("fast", "fast", "slow"), 3, seed=0)
        assert s.wins_by_level()["fast"] == s.wins[0] + s.wins[1]

    def test_bad_players(self):
        with pytest.raises(ValueError):
            A.run_arena(("fast",), 1)
        with pytest.raises(ValueError):
            A.run_arena(("fast", "random"), 1)


class TestMainArena:
    def test_text(self, capsys):
        assert A.main_arena(["fast", "slow"], 4, 0, False) == 0
        out = capsys.readouterr().out
        assert out.startswith("4 matches of High Voltage, 2 players, seats rotating")
        assert "player 1 (fast):" in out and "player 2 (slow):" in out

    def test_json_lines(self, capsys):
        assert A.main_arena(["fast", "medium", "slow"], 3, 7, True) == 0
        lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
        assert len(lines) == 4
        for i, m in enumerate(lines[:3]):
            assert m["seed"] == 7 + i and len(m["players"]) == 3
            assert m["ranking"][m["winner"]] == 1 and m["reason"] == "last card"
            assert m["actions"] > 0
        summary = lines[-1]
        assert summary["summary"] is True and summary["matches"] == 3 and summary["game"] == "high-voltage"
        assert sum(summary["wins_by_level"].values()) == 3

    def test_default_players(self, capsys):
        assert A.main_arena([], 1, 0, False) == 0
        assert "(medium)" in capsys.readouterr().out

    @pytest.mark.parametrize("players", [["fast"], ["fast"] * 5, ["fast", "nobody"]])
    def test_bad_players_exit_2(self, players, capsys):
        assert A.main_arena(players, 1, 0, False) == 2
        assert capsys.readouterr().err.startswith("voltage arena:")


class TestSmartChoice:
    def test_the_arena_has_smart_entrants(self):
        assert make_hv_bot("medium").rule == ""
        smart = make_hv_bot("medium-smart", 1)
        assert smart.rule == SMART and smart.name == "medium-smart" and smart.reaction == REACTION_SECONDS["medium"]
        with pytest.raises(ValueError):
            make_hv_bot("random-smart")
        s = A.run_arena(("fast-smart", "fast"), 4, seed=3)
        assert s.matches == 4 and s.wins_by_level().keys() == {"fast-smart", "fast"}

    def test_smart_prefers_a_card_it_can_follow(self):
        for seed in range(10):
            bot = ReactionBot("fast", 0.8, seed, spot=1.0, rule=SMART)
            assert bot.decide(view(hand=("7/3", "3/1", "2/1")))[1].card == F("3/1")

    def test_smart_counts_the_cards_it_saw_played(self):
        from engine.highvoltage.bots import card_worth

        bot = ReactionBot("fast", 0.8, 1, spot=1.0, rule=SMART)
        for n, top in enumerate(("5/2", "7/1", "8/3")):
            bot.decide(view(hand=("1/1", "1/1"), top=top, top_no=n))
        assert sorted(bot._tops.values()) == sorted(F(c) for c in ("5/2", "7/1", "8/3"))
        # Followers of 6 (+-1) are 5s and 7s: with none of them left unseen, nobody else can follow.
        none_left = {F("1/1"): 10}
        some_left = {F("5/1"): 5, F("1/1"): 5}
        assert card_worth(F("6/1"), [], none_left, (4,)) > card_worth(F("6/1"), [], some_left, (4,))


class TestChainChoice:
    # On 5 (+-2) only 7 (+-1) and 3 (+-2) fit.  After 7 (+-1), two cards fit (8 and 6) but
    # nothing fits on either: one more play of my own at most.  After 3 (+-2) only 1 (+-3)
    # fits, but then 8 (+-1), 7 (+-1) and 6 (+-1) follow one another: the whole hand in a row.
    HAND = ("7/1", "8/1", "6/1", "3/2", "1/3")

    def test_the_levels_take_the_longest_chain_the_v1_entrant_the_most_followers(self):
        for seed in range(10):
            level, v1 = make_hv_bot("medium", seed), make_hv_bot("medium-v1", seed)
            assert v1.rule == V1 and v1.reaction == level.reaction == REACTION_SECONDS["medium"]
            level.spot = v1.spot = 1.0  # both see every fitting card
            assert level.decide(view(hand=self.HAND))[1].card == F("3/2")
            assert v1.decide(view(hand=self.HAND))[1].card == F("7/1")

    def test_chain_key(self):
        rest_after = {c: [F(x) for x in self.HAND if x != c] for c in ("7/1", "3/2")}
        assert chain_key(F("7/1"), rest_after["7/1"]) == (1, 2)
        assert chain_key(F("3/2"), rest_after["3/2"]) == (4, 1)
        assert chain_length(F("3/2"), tuple(rest_after["3/2"]), depth=2) == 2  # the search stops at its depth
        assert chain_length(F("1/1"), (F("5/1"),)) == 0

    def test_v1_entrants_play_in_the_arena(self):
        s = A.run_arena(("fast-v1", "fast"), 4, seed=3)
        assert s.matches == 4 and s.wins_by_level().keys() == {"fast-v1", "fast"}
