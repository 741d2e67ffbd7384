"""A yes/no question gets the verdict its evidence states (issue 25), read from a cited
sentence: yes, no, or unclear — and none at all when no sentence states one."""

from __future__ import annotations

from sleuth.pipeline.asks import asks
from sleuth.pipeline.verdict import defined, says, says_in, states_finding
from sleuth.pipeline.write.extractive import compose, render
from sleuth.types import Passage, Source

QUESTION = "Does daily coffee improve memory in older adults?"
METHODS = (
    "METHODS: We studied 300 older adults who drank coffee daily and 300 who did not, and "
    "tested their memory every year for five years."
)


def page(results: str, number: int = 1) -> Source:
    text = f"Coffee and memory in older adults\n{METHODS}\nRESULTS: {results}"
    return Source(number, f"http://journal.example/{number}", "Coffee and memory in older adults",
                  1.0, (Passage(text, 1.0, 0),), text=text)  # fmt: skip


def answer(*sources: Source, question: str = QUESTION) -> str:
    return render(compose(sources, question, 5))


def test_an_affirmed_finding_answers_yes_and_cites_its_sentence() -> None:
    text = answer(page("Daily coffee significantly improved memory scores in older adults."))
    assert text.startswith("Yes. RESULTS: Daily coffee significantly improved memory scores in")
    assert text.split("\n")[0].endswith("older adults [1].")


def test_a_negated_finding_answers_no() -> None:
    text = answer(page("Daily coffee did not improve memory in older adults over five years."))
    assert text.startswith("No. RESULTS: Daily coffee did not improve memory in older adults")


def test_no_significant_difference_answers_no() -> None:
    text = answer(page("There was no significant difference in memory between coffee drinkers "
                       "and older adults who drank none."))  # fmt: skip
    assert text.startswith("No. ")


def test_a_hedged_finding_says_the_sources_hedge() -> None:
    text = answer(page("Daily coffee may improve memory in older adults, but the effect is small."))
    assert text.startswith("Unclear: the sources hedge. RESULTS: Daily coffee may improve memory")


def test_a_negation_about_another_predicate_does_not_answer_no() -> None:
    text = answer(page("Daily coffee improved memory in older adults, although it did not change "
                       "their sleep."))  # fmt: skip
    assert text.startswith("Yes. ")
    lone = answer(page("The participants did not report any change in their sleep at night."))
    assert not lone.startswith(("Yes", "No"))


def test_a_negation_inside_a_relative_clause_is_not_the_finding() -> None:
    text = answer(page("Older adults who did not smoke had better memory with daily coffee."))
    assert not text.startswith("No")


def test_what_a_study_set_out_to_do_or_how_states_no_verdict() -> None:
    aim = "OBJECTIVE: To determine whether daily coffee improves memory in older adults."
    text = answer(page(aim))
    assert not text.startswith(("Yes", "No", "Unclear"))


def test_no_verdict_without_a_page_about_the_question() -> None:
    said = "Green tea did not improve sleep in young runners."
    text = answer(Source(1, "http://tea.example/", "Tea", 1.0, (Passage(said, 1.0, 0),)))
    assert not text.startswith(("Yes", "No", "Unclear"))


def test_a_negated_question_turns_the_reading_round() -> None:
    wanted = asks("Does daily coffee not improve memory in older adults?")
    assert says("Daily coffee did not improve memory in older adults.", wanted) == "yes"
    assert says("Daily coffee significantly improved memory in older adults.", wanted) == "no"


def test_a_question_asking_sameness_is_affirmed_by_no_difference() -> None:
    wanted = asks("Is decaffeinated coffee as effective as regular coffee for memory?")
    sentence = "Memory scores did not differ between decaffeinated and regular coffee drinkers."
    assert says(sentence, wanted) == "yes"


def test_a_question_that_is_not_yes_or_no_gets_no_verdict() -> None:
    how = "How much does daily coffee improve memory in older adults?"
    text = answer(page("Daily coffee significantly improved memory in older adults."), question=how)
    assert not text.startswith(("Yes", "No"))


def test_yes_no_questions_are_told_from_others_by_their_last_clause() -> None:
    assert asks("Body dysmorphic disorder: does it have a psychotic subtype?").yes_no
    assert asks("Storage of vaccines in the community: weak link in the cold chain?").yes_no
    assert asks("Bypass temperature does not affect the euthyroid sick syndrome?").yes_no
    assert not asks("Procter & Gamble Co. was founded by a man who died in what year?").yes_no
    assert not asks("What do E. B. White and Dan Masterson have in common?").yes_no
    assert not asks("best laptops 2024?").yes_no


def test_a_harm_found_absent_affirms_only_a_question_asking_safety_or_averting_it() -> None:
    safe = asks("Is daily coffee safe for older adults?")
    assert says("There were no complications in older adults drinking daily coffee.", safe) == "yes"
    harm = asks("Does daily coffee cause complications in older adults?")
    assert says("There were no complications in older adults drinking daily coffee.", harm) == "no"
    delays = asks("Does daily coffee delay sleep in older adults?")
    assert says("No complications delayed sleep in older adults drinking coffee.", delays) == "no"
    averts = asks("Does daily coffee prevent complications in older adults?")
    assert says("Older adults drinking coffee did not develop complications.", averts) == "yes"
    assert (
        says("There were no complications in older adults drinking daily coffee.", averts) == "yes"
    )


def test_a_concessive_opening_is_not_the_finding() -> None:
    sentence = ("Although sleep did not differ between the groups, daily coffee significantly "
                "improved memory in older adults.")  # fmt: skip
    assert says(sentence, asks(QUESTION)) == "yes"
    assert says(f"RESULTS: {sentence}", asks(QUESTION)) == "yes"


def test_a_later_clause_about_the_same_finding_qualifies_it() -> None:
    sentence = ("Daily coffee was associated with better memory in older adults, but this "
                "association was not significant after adjustment for age.")  # fmt: skip
    assert says(sentence, asks(QUESTION)) == "no"


def test_words_that_hedge_only_in_a_hedging_phrase() -> None:
    named = ("Memory of older adults improved significantly with daily coffee in mixed and in "
             "single-sex groups.")  # fmt: skip
    assert says(named, asks(QUESTION)) == "yes"
    hedged = "Daily coffee improved memory in older adults, but the effect remains uncertain."
    assert says(hedged, asks(QUESTION)) == "unsettled"
    nominal = "Daily coffee improved memory in older adults, nominally significant at p = 0.04."
    assert says(nominal, asks(QUESTION)) == "unsettled"


def test_a_finding_without_statistical_significance_answers_no() -> None:
    sentence = "Daily coffee improved memory in older adults, without statistical significance."
    assert says(sentence, asks(QUESTION)) == "no"


def test_groups_alike_at_the_start_state_no_verdict() -> None:
    sentence = "Coffee drinkers and older adults who drank none were similar with regard to age."
    assert says(sentence, asks(QUESTION)) is None
    text = answer(page("The coffee and memory groups were comparable in terms of age and sex."))
    assert not text.startswith(("Yes", "No", "Unclear"))


def test_a_hyphenated_word_names_its_parts() -> None:
    wanted = asks("Does coffee improve memory?")
    assert (
        says("Coffee-drinkers recalled significantly more words than abstainers.", wanted) == "yes"
    )


def test_an_abbreviation_the_page_defines_names_what_it_stands_for() -> None:
    text = (
        "Hyperbaric oxygen (HBO) and wound healing\nMETHODS: Patients with foot ulcers received "
        "hyperbaric oxygen (HBO) or standard care.\nRESULTS: Ulcers closed significantly faster "
        "with HBO than with standard care."
    )
    source = Source(1, "http://journal.example/hbo", "Wound healing", 1.0,
                    (Passage(text, 1.0, 0),), text=text)  # fmt: skip
    wanted = asks("Does hyperbaric oxygen speed the healing of foot ulcers?")
    short = defined(source)
    assert short["HBO"] == frozenset({"hyperbaric", "oxygen"})
    sentence = "Wounds closed significantly faster with HBO."
    assert says(sentence, wanted) is None
    assert says(sentence, wanted, short) == "yes"
    assert answer(source, question=wanted.question).startswith("Yes. ")
    # the confidence rule reads the cited lead where it stands, as the verdict was read
    lead = "RESULTS: Ulcers closed significantly faster with HBO than with standard care [1]."
    assert says_in(lead, asks("Does hyperbaric oxygen speed healing?"), [source]) == "yes"
    assert says(lead, asks("Does hyperbaric oxygen speed healing?")) is None


def test_a_tested_result_under_the_results_heading_is_about_the_pages_study() -> None:
    wanted = asks(QUESTION)
    tested = "Recall scores rose significantly in the first group (p < 0.01)."
    untested = "Recall scores rose in the first group."
    assert says(tested, wanted) is None  # names nothing the question asks about...
    assert says(tested, wanted, in_results=True) == "yes"  # ...but reports the study's result
    assert says(untested, wanted, in_results=True) is None


def test_a_heading_naming_results_holds_findings_even_beside_methods() -> None:
    text = (
        "Coffee and memory in older adults\nOBJECTIVE: To determine whether daily coffee "
        "improves memory in older adults.\nMETHODS AND RESULTS: Daily coffee significantly "
        "improved memory in older adults over five years."
    )
    source = Source(1, "http://journal.example/1", "Coffee and memory in older adults", 1.0,
                    (Passage(text, 1.0, 0),), text=text)  # fmt: skip
    assert states_finding("Daily coffee improved memory.", "METHODS AND RESULTS")
    assert not states_finding("Daily coffee improved memory.", "METHODS")
    assert answer(source).startswith("Yes. ")


def test_that_after_a_verb_of_finding_opens_the_finding_not_a_relative_clause() -> None:
    shown = "The trial showed that daily coffee did not improve memory in older adults."
    assert says(shown, asks(QUESTION)) == "no"
    relative = "Older adults that did not smoke had significantly better memory with coffee."
    assert says(relative, asks(QUESTION)) == "yes"


def test_a_question_asking_equality_is_denied_by_a_difference_found() -> None:
    wanted = asks("Is memory with decaffeinated coffee equal to memory with regular coffee?")
    found = "Memory differed significantly between decaffeinated and regular coffee drinkers."
    assert says(found, wanted) == "no"
