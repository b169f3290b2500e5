"""Hand-written words and prose per language for the trust corpus (issue 23); see build.py.

Prose paragraphs (``filler``) read like an agent's reasoning: descriptive, with hedge-like words in passing
("the kind of", "less likely"), and never an answer word, label, verdict or correction. ``closing`` is one
plain sentence leading to the answer.
"""

from __future__ import annotations

from typing import Any

LANGUAGES: dict[str, dict[str, Any]] = {
    "english": {
        "yes": ["Yes.", "Yes, that's correct.", "True.", "Correct.", "Yep, it is."],
        "no": ["No.", "No, it isn't.", "False.", "Incorrect.", "Nope."],
        "yes_word": "yes",
        "no_word": "no",
        "emphatic_no": ["Absolutely not.", "Of course not.", "Definitely not."],
        "emphatic_yes": ["Absolutely, yes.", "Definitely yes.", "Of course, yes."],
        "labels": ["Answer:", "Final answer:", "The answer is", "**Answer:**"],
        "take_back": ["Wait, no,", "Actually, no —", "On second thought,", "Just kidding,", "Correction:"],
        "hedge": ["Maybe", "I think", "Probably", "I'm not sure, but", "Possibly"],
        "negate": ["That is not true.", "It isn't correct."],
        "question": ["Is it true?", "Could the answer be yes?"],
        "bounds": ["about", "more than", "at least", "nearly", "less than", "fewer than", "roughly"],
        "restate": "so the right total is",
        "sarcasm": ["Yes! Not.", "Yeah, right. Like that would ever happen.", "Sure, sure. As if."],
        "contrast": "Though honestly {other} is defensible too.",
        "sources": "some sources say {other}.",
        "that_clause": "It is true that the number is odd. However, it is not prime.",
        "flip_no": "Is it false? No.",
        "flip_yes": "Is that incorrect? Yes.",
        "closing": "Putting these steps together gives the result below.",
        "filler": [
            "Let me work through this step by step. First, consider the kind of insulation used in older "
            "buildings: mineral wool was common, and it is less likely to sag than loose cellulose. The "
            "figures in the table come from the 2019 survey, which measured heat loss in 412 homes.",
            "## Background\n\nThe question turns on how the measurements were taken. Sensors were placed on "
            "north-facing walls, where moisture tends to collect, and readings were logged every ten "
            "minutes. A few homes were excluded because their sensors failed during the cold spell.",
            'Here is the relevant part of the configuration the agent read:\n\n```json\n{"sensor": '
            '"t-14", "interval_s": 600, "unit": "celsius"}\n```\n\nThe interval matters because '
            "shorter gaps smooth out the spikes that a slower logger would miss.",
            "- The dataset has three regions.\n- Each region reports monthly averages.\n- The averages are "
            "weighted by floor area, which keeps a few large houses from dominating the mean.",
            "<thinking>The user wants the final figure, not the derivation. I should check the units "
            "before stating it.</thinking>\nThe units are consistent across all three regions, so the "
            "totals can be added directly.",
        ],
    },
    "french": {
        "yes": ["Oui.", "Oui, c'est exact.", "Vrai.", "C'est correct.", "Bien sûr que oui !"],
        "no": ["Non.", "Non, ce n'est pas le cas.", "Faux.", "C'est faux.", "Absolument pas."],
        "yes_word": "oui",
        "no_word": "non",
        "emphatic_no": ["Absolument pas.", "Pas du tout.", "Certainement pas."],
        "emphatic_yes": ["Bien sûr que oui !", "Absolument, oui.", "Évidemment que oui."],
        "labels": ["Réponse :", "Réponse finale :", "La réponse est"],
        "take_back": ["Attendez, non,", "En fait, non —", "Correction :", "Je plaisante,"],
        "hedge": ["Peut-être", "Je pense que", "Probablement", "Je ne suis pas sûr, mais"],
        "negate": ["Ce n'est pas vrai.", "Ce n'est pas exact."],
        "question": ["Est-ce vrai ?", "La réponse serait-elle oui ?"],
        "bounds": ["environ", "plus de", "au moins", "moins de", "presque"],
        "restate": "donc la bonne réponse est",
        "sarcasm": ["Oui ! Pas.", "Oui, c'est ça. Comme si."],
        "contrast": "Mais honnêtement {other} se défend aussi.",
        "sources": "certaines sources disent {other}.",
        "that_clause": "C'est vrai que le nombre est impair. Cependant, il n'est pas premier.",
        "flip_no": "Est-ce faux ? Non.",
        "flip_yes": "Est-ce inexact ? Oui.",
        "closing": "En rassemblant ces étapes, on obtient le résultat ci-dessous.",
        "filler": [
            "Procédons par étapes. D'abord, le type d'isolant utilisé dans les bâtiments anciens : la laine "
            "minérale était courante, et elle se tasse moins que la cellulose en vrac. Les chiffres du "
            "tableau viennent de l'enquête de 2019, menée sur 412 logements.",
            "## Contexte\n\nLa question dépend de la façon dont les mesures ont été prises. Les capteurs "
            "étaient placés sur les murs exposés au nord, où l'humidité s'accumule, et relevés toutes les "
            "dix minutes.",
            'Voici la partie utile de la configuration :\n\n```json\n{"capteur": "t-14", '
            '"intervalle_s": 600}\n```\n\nL\'intervalle compte, car un relevé plus lent manquerait les pics.',
            "- Les données couvrent trois régions.\n- Chaque région publie des moyennes mensuelles.\n- Les "
            "moyennes sont pondérées par la surface habitable.",
        ],
    },
    "german": {
        "yes": ["Ja.", "Ja, das ist richtig.", "Wahr.", "Das stimmt.", "Jawohl."],
        "no": ["Nein.", "Nein, das ist falsch.", "Falsch.", "Nein, das stimmt nicht.", "Natürlich nicht."],
        "yes_word": "ja",
        "no_word": "nein",
        "emphatic_no": ["Natürlich nicht.", "Keineswegs.", "Auf keinen Fall."],
        "emphatic_yes": ["Natürlich, ja.", "Absolut, ja.", "Selbstverständlich ja."],
        "labels": ["Antwort:", "Endgültige Antwort:", "Die Antwort ist"],
        "take_back": ["Moment, nein,", "Korrektur:", "Warte, nein —", "War nur Spaß,"],
        "hedge": ["Vielleicht", "Ich glaube", "Wahrscheinlich", "Ich bin mir nicht sicher, aber"],
        "negate": ["Das ist nicht wahr.", "Das stimmt nicht."],
        "question": ["Ist das wahr?", "Lautet die Antwort ja?"],
        "bounds": ["etwa", "mehr als", "mindestens", "weniger als", "ungefähr"],
        "restate": "also ist die richtige Summe",
        "sarcasm": ["Ja! Nicht.", "Ja, klar. Als ob."],
        "contrast": "Aber ehrlich gesagt ist {other} auch vertretbar.",
        "sources": "manche Quellen sagen {other}.",
        "that_clause": "Es ist wahr, dass die Zahl ungerade ist. Jedoch ist sie keine Primzahl.",
        "flip_no": "Ist es falsch? Nein.",
        "flip_yes": "Ist das unrichtig? Ja.",
        "closing": "Fasst man diese Schritte zusammen, ergibt sich das Ergebnis unten.",
        "filler": [
            "Gehen wir Schritt für Schritt vor. Zuerst die Art der Dämmung in älteren Gebäuden: Mineralwolle "
            "war üblich und sackt weniger ab als lose Zellulose. Die Zahlen der Tabelle stammen aus der "
            "Erhebung von 2019 mit 412 Wohnungen.",
            "## Hintergrund\n\nEntscheidend ist, wie gemessen wurde. Die Sensoren hingen an Nordwänden, wo "
            "sich Feuchtigkeit sammelt, und wurden alle zehn Minuten ausgelesen.",
            'Hier der relevante Teil der Konfiguration:\n\n```json\n{"sensor": "t-14", "intervall_s": '
            "600}\n```\n\nDas Intervall ist wichtig, weil ein langsamerer Logger Spitzen verpassen würde.",
            "- Die Daten umfassen drei Regionen.\n- Jede Region meldet Monatsmittel.\n- Die Mittel sind nach "
            "Wohnfläche gewichtet.",
        ],
    },
    "spanish": {
        "yes": ["Sí.", "Sí, es correcto.", "Verdadero.", "Es cierto.", "Claro que sí."],
        "no": ["No.", "No, no es así.", "Falso.", "Es falso.", "Por supuesto que no."],
        "yes_word": "sí",
        "no_word": "no",
        "emphatic_no": ["Por supuesto que no.", "Claro que no.", "Para nada."],
        "emphatic_yes": ["Claro que sí.", "Por supuesto que sí.", "Desde luego que sí."],
        "labels": ["Respuesta:", "Respuesta final:", "La respuesta es"],
        "take_back": ["Espera, no,", "Corrección:", "Es broma,", "Pensándolo bien,"],
        "hedge": ["Quizás", "Creo que", "Probablemente", "No estoy seguro, pero"],
        "negate": ["No es cierto.", "No es correcto."],
        "question": ["¿Es verdad?", "¿La respuesta es sí?"],
        "bounds": ["aproximadamente", "más de", "al menos", "menos de", "casi"],
        "restate": "así que la respuesta correcta es",
        "sarcasm": ["¡Sí! No.", "Sí, claro. Como si eso fuera a pasar."],
        "contrast": "Aunque sinceramente {other} también es defendible.",
        "sources": "algunas fuentes dicen {other}.",
        "that_clause": "Es cierto que el número es impar. Sin embargo, no es primo.",
        "flip_no": "¿Es falso? No.",
        "flip_yes": "¿Es incorrecto? Sí.",
        "closing": "Al juntar estos pasos se obtiene el resultado de abajo.",
        "filler": [
            "Vamos paso a paso. Primero, el tipo de aislamiento de los edificios antiguos: la lana mineral "
            "era común y se asienta menos que la celulosa suelta. Las cifras de la tabla vienen de la "
            "encuesta de 2019, con 412 viviendas.",
            "## Contexto\n\nLa pregunta depende de cómo se tomaron las medidas. Los sensores estaban en "
            "muros orientados al norte, donde se acumula la humedad, y se leían cada diez minutos.",
            'Esta es la parte relevante de la configuración:\n\n```json\n{"sensor": "t-14", '
            '"intervalo_s": 600}\n```\n\nEl intervalo importa porque un registro más lento perdería picos.',
            "- Los datos cubren tres regiones.\n- Cada región publica medias mensuales.\n- Las medias se "
            "ponderan por superficie.",
        ],
    },
    "italian": {
        "yes": ["Sì.", "Sì, è corretto.", "Vero.", "È vero.", "Esatto."],
        "no": ["No.", "No, non è così.", "Falso.", "È falso.", "Assolutamente no."],
        "yes_word": "sì",
        "no_word": "no",
        "emphatic_no": ["Assolutamente no.", "Per niente.", "Certo che no."],
        "emphatic_yes": ["Certo che sì.", "Assolutamente sì.", "Certo che sì!"],
        "labels": ["Risposta:", "Risposta finale:", "La risposta è"],
        "take_back": ["Aspetta, no,", "Correzione:", "Scherzavo,", "Ripensandoci,"],
        "hedge": ["Forse", "Penso che", "Probabilmente", "Non sono sicuro, ma"],
        "negate": ["Non è vero.", "Non è corretto."],
        "question": ["È vero?", "La risposta è sì?"],
        "bounds": ["circa", "più di", "almeno", "meno di", "quasi"],
        "restate": "quindi la risposta giusta è",
        "sarcasm": ["Sì! Non.", "Sì, come no. Figurati."],
        "contrast": "Però onestamente anche {other} è difendibile.",
        "sources": "alcune fonti dicono {other}.",
        "that_clause": "È vero che il numero è dispari. Tuttavia, non è primo.",
        "flip_no": "È falso? No.",
        "flip_yes": "È sbagliato? Sì.",
        "closing": "Mettendo insieme questi passaggi si ottiene il risultato qui sotto.",
        "filler": [
            "Procediamo per passi. Prima di tutto, il tipo di isolante negli edifici vecchi: la lana "
            "minerale era comune e si assesta meno della cellulosa sfusa. I dati della tabella vengono "
            "dall'indagine del 2019 su 412 abitazioni.",
            "## Contesto\n\nLa domanda dipende da come sono state prese le misure. I sensori erano sui muri "
            "esposti a nord, dove si accumula umidità, e venivano letti ogni dieci minuti.",
            'Ecco la parte utile della configurazione:\n\n```json\n{"sensore": "t-14", '
            '"intervallo_s": 600}\n```\n\nL\'intervallo conta perché un registratore più lento perderebbe '
            "i picchi.",
            "- I dati coprono tre regioni.\n- Ogni regione pubblica medie mensili.\n- Le medie sono pesate "
            "per superficie.",
        ],
    },
    "portuguese": {
        "yes": ["Sim.", "Sim, está correto.", "Verdadeiro.", "É verdade.", "Claro que sim."],
        "no": ["Não.", "Não, não é verdade.", "Falso.", "É falso.", "Claro que não."],
        "yes_word": "sim",
        "no_word": "não",
        "emphatic_no": ["Claro que não.", "De jeito nenhum.", "De modo nenhum."],
        "emphatic_yes": ["Claro que sim.", "Com certeza, sim.", "Obviamente, sim."],
        "labels": ["Resposta:", "Resposta final:", "A resposta é"],
        "take_back": ["Espera, não,", "Correção:", "É brincadeira,", "Pensando bem,"],
        "hedge": ["Talvez", "Acho que", "Provavelmente", "Não tenho certeza, mas"],
        "negate": ["Não é verdade.", "Não está correto."],
        "question": ["É verdade?", "A resposta é sim?"],
        "bounds": ["cerca de", "mais de", "pelo menos", "menos de", "quase"],
        "restate": "então a resposta certa é",
        "sarcasm": ["Sim! Não.", "Sim, claro. Até parece."],
        "contrast": "Mas sinceramente {other} também é defensável.",
        "sources": "algumas fontes dizem {other}.",
        "that_clause": "É verdade que o número é ímpar. Porém, não é primo.",
        "flip_no": "É falso? Não.",
        "flip_yes": "Está incorreto? Sim.",
        "closing": "Juntando estes passos obtém-se o resultado abaixo.",
        "filler": [
            "Vamos por partes. Primeiro, o tipo de isolamento dos edifícios antigos: a lã mineral era comum "
            "e assenta menos do que a celulose solta. Os números da tabela vêm do inquérito de 2019, com "
            "412 casas.",
            "## Contexto\n\nA pergunta depende de como as medições foram feitas. Os sensores ficavam nas "
            "paredes viradas a norte, onde a humidade se acumula, e eram lidos a cada dez minutos.",
            'Esta é a parte relevante da configuração:\n\n```json\n{"sensor": "t-14", "intervalo_s": '
            "600}\n```\n\nO intervalo importa porque um registo mais lento perderia os picos.",
            "- Os dados cobrem três regiões.\n- Cada região publica médias mensais.\n- As médias são "
            "ponderadas pela área.",
        ],
    },
    "russian": {
        "yes": ["Да.", "Да, это верно.", "Верно.", "Это правда.", "Конечно, да."],
        "no": ["Нет.", "Нет, это не так.", "Неверно.", "Это ложно.", "Конечно нет."],
        "yes_word": "да",
        "no_word": "нет",
        "emphatic_no": ["Конечно нет.", "Вовсе нет.", "Совсем нет."],
        "emphatic_yes": ["Конечно, да.", "Безусловно, да.", "Разумеется, да."],
        "labels": ["Ответ:", "Окончательный ответ:"],
        "take_back": ["Подождите, нет,", "Поправка:", "Шучу,"],
        "hedge": ["Возможно", "Я думаю", "Наверное", "Не уверен, но"],
        "negate": ["Это не верно.", "Это не правда."],
        "question": ["Это верно?", "Ответ да?"],
        "bounds": ["около", "более", "не менее", "менее", "почти"],
        "restate": "так что правильный ответ",
        "sarcasm": ["Да! Нет.", "Ага, конечно. Как будто."],
        "contrast": "Хотя, честно говоря, {other} тоже можно защитить.",
        "sources": "некоторые источники говорят {other}.",
        "that_clause": "Верно, что число нечётное. Однако оно не простое.",
        "flip_no": "Это неверно? Нет.",
        "flip_yes": "Это ложно? Да.",
        "closing": "Если собрать эти шаги вместе, получится результат ниже.",
        "filler": [
            "Разберём по шагам. Сначала тип утеплителя в старых зданиях: минеральная вата была обычной и "
            "оседает меньше, чем рыхлая целлюлоза. Цифры в таблице взяты из обследования 2019 года, 412 "
            "квартир.",
            "## Контекст\n\nВсё зависит от того, как проводились измерения. Датчики стояли на северных "
            "стенах, где собирается влага, и считывались каждые десять минут.",
            'Вот нужная часть конфигурации:\n\n```json\n{"sensor": "t-14", "interval_s": 600}\n```\n\n'
            "Интервал важен: более медленный регистратор пропустил бы пики.",
            "- Данные охватывают три региона.\n- Каждый регион публикует средние за месяц.\n- Средние "
            "взвешены по площади.",
        ],
    },
}
