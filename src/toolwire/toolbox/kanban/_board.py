"""`Board`: one scope's cards in a key-value store, every change a compare-and-set.

Each card is its own key, so agents changing different cards never contend; a change to one
card is read-change-compare-and-set, retried when another agent changed it first
(`toolwire.toolbox.memory._swaps.swap`), so no update is lost. Card numbers come from the
store's atomic ``increment``: two agents creating at once get different cards, and a board holds
at most ``max_cards``.
"""

from __future__ import annotations

from collections.abc import Callable

from toolwire.capabilities.seams import AtomicKeyValueStore
from toolwire.results import Err, ErrorCode
from toolwire.toolbox.kanban._cards import CARD_ID, CARD_PREFIX, Card, card_key, now_iso
from toolwire.toolbox.memory._swaps import Refusal, swap

__all__ = ["DEFAULT_MAX_CARDS", "Board", "unknown_card"]

DEFAULT_MAX_CARDS = 2_000
"""Cards one board may hold, archived ones included."""
_SEQUENCE = "toolwire.kanban.seq"


def unknown_card(card_id: str) -> Err:
    """The answer for a card id that names no card of this board."""
    return Err(
        f"no card {card_id[:60]!r} on this board; kanban_list shows the cards",
        ErrorCode.INPUT_INVALID,
        field="card_id",
    )


class Board:
    """The cards of one scope.

    Args:
        store: The scope's store.
        max_cards: Cards the board may hold.
    """

    def __init__(self, store: AtomicKeyValueStore, *, max_cards: int = DEFAULT_MAX_CARDS) -> None:
        self._store = store
        self._max_cards = max_cards

    async def create(self, make: Callable[[str, str], Card]) -> Card | Err:
        """A new card, ``make(card_id, now)``, under the next free number."""
        while True:
            number = await self._store.increment(_SEQUENCE)
            if number > self._max_cards:
                return Err(
                    f"this board holds {self._max_cards} cards, the most it may",
                    cause="board_full",
                )
            card = make(f"card-{number}", now_iso())
            if await self._store.compare_and_set(card_key(number), None, card.dump()):
                return card

    async def get(self, card_id: str) -> Card | Err:
        """The card ``card_id``, or the ``input_invalid`` answer."""
        match = CARD_ID.fullmatch(card_id)
        text = None if match is None else await self._store.get(card_key(int(match[1])))
        card = None if text is None else Card.parse(text)
        return unknown_card(card_id) if card is None else card

    async def change(self, card_id: str, edit: Callable[[Card], Card]) -> Card | Err:
        """Apply ``edit`` to the card atomically (retried on a concurrent change).

        ``edit`` may raise `Refusal`; the edited card is answered.
        """
        match = CARD_ID.fullmatch(card_id)
        if match is None:
            return unknown_card(card_id)

        def apply(current: str | None) -> tuple[str, Card]:
            card = None if current is None else Card.parse(current)
            if card is None:
                raise Refusal(unknown_card(card_id))
            edited = edit(card)
            return edited.dump(), edited

        return await swap(self._store, card_key(int(match[1])), apply)

    async def cards(self) -> list[Card]:
        """Every card, in number order."""
        keys = await self._store.list(CARD_PREFIX)
        keys.sort(key=lambda key: int(key[len(CARD_PREFIX) :] or 0))
        cards = []
        for key in keys:
            text = await self._store.get(key)
            card = None if text is None else Card.parse(text)
            if card is not None:
                cards.append(card)
        return cards
