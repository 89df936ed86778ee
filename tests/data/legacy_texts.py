# ruff: noqa: RUF001  (real text in other scripts: its letters are meant)
"""Sentences per language, for the legacy-encoding guess: a sales report.

Written for the project, not published text; ``udhr_texts`` holds published
prose for the same guess.
"""

from __future__ import annotations

REPORTS: dict[str, str] = {
    "ru": (
        "Отчёт о продажах за третий квартал. Выручка выросла на двенадцать "
        "процентов по сравнению с прошлым годом. Основной рост пришёлся на "
        "Москву и Санкт-Петербург, где открылись новые магазины. Расходы на "
        "доставку снизились, а средний чек увеличился. В следующем квартале мы "
        "планируем расширить ассортимент и запустить программу лояльности. "
        "Подробные таблицы приведены ниже; вопросы направляйте в финансовый "
        "отдел. Спасибо всем сотрудникам за работу!"
    ),
    "pl": (
        "Raport sprzedaży za trzeci kwartał. Przychody wzrosły o dwanaście "
        "procent w porównaniu z zeszłym rokiem. Największy wzrost odnotowaliśmy "
        "w Warszawie i Krakowie, gdzie otwarto nowe sklepy. Koszty dostaw "
        "spadły, a średnia wartość koszyka się zwiększyła. W następnym kwartale "
        "planujemy poszerzyć ofertę i uruchomić program lojalnościowy. "
        "Szczegółowe tabele znajdują się poniżej; pytania prosimy kierować do "
        "działu finansów. Dziękujemy wszystkim pracownikom!"
    ),
    "cs": (
        "Zpráva o prodeji za třetí čtvrtletí. Tržby vzrostly o dvanáct procent "
        "ve srovnání s loňským rokem. Největší růst jsme zaznamenali v Praze a "
        "Brně, kde se otevřely nové obchody. Náklady na dopravu klesly a "
        "průměrná hodnota nákupu se zvýšila. V příštím čtvrtletí plánujeme "
        "rozšířit sortiment a spustit věrnostní program. Podrobné tabulky jsou "
        "uvedeny níže; dotazy směřujte na finanční oddělení. Děkujeme všem "
        "zaměstnancům!"
    ),
    "de": (
        "Verkaufsbericht für das dritte Quartal. Der Umsatz stieg um zwölf "
        "Prozent gegenüber dem Vorjahr. Das größte Wachstum gab es in München "
        "und Köln, wo neue Geschäfte eröffnet wurden. Die Lieferkosten sanken, "
        "und der durchschnittliche Warenkorb wurde größer. Im nächsten Quartal "
        "möchten wir das Sortiment erweitern. Ausführliche Tabellen folgen "
        "unten; Fragen bitte an die Finanzabteilung. Vielen Dank für Ihre Mühe!"
    ),
    "fr": (
        "Rapport des ventes du troisième trimestre. Le chiffre d'affaires a "
        "progressé de douze pour cent par rapport à l'an dernier. La plus forte "
        "croissance a été enregistrée à Paris et à Lyon, où de nouveaux "
        "magasins ont ouvert. Les frais de livraison ont baissé et le panier "
        "moyen a augmenté. Au prochain trimestre, nous élargirons l'offre et "
        "lancerons un programme de fidélité. Les tableaux détaillés figurent "
        "ci-dessous ; adressez vos questions au service financier. Merci à tous "
        "!"
    ),
    "es": (
        "Informe de ventas del tercer trimestre. Los ingresos crecieron un doce "
        "por ciento respecto al año pasado. El mayor crecimiento se registró en "
        "Madrid y Barcelona, donde se abrieron tiendas nuevas. Los costes de "
        "envío bajaron y el importe medio por compra aumentó. El próximo "
        "trimestre ampliaremos el catálogo y lanzaremos un programa de "
        "fidelización. Las tablas detalladas están más abajo; envíe sus "
        "preguntas al departamento financiero. ¡Gracias a todos!"
    ),
    "el": (
        "Έκθεση πωλήσεων για το τρίτο τρίμηνο. Τα έσοδα αυξήθηκαν κατά δώδεκα "
        "τοις εκατό σε σύγκριση με πέρυσι. Η μεγαλύτερη ανάπτυξη σημειώθηκε "
        "στην Αθήνα και στη Θεσσαλονίκη, όπου άνοιξαν νέα καταστήματα. Το "
        "κόστος αποστολής μειώθηκε και η μέση αξία αγοράς αυξήθηκε. Το επόμενο "
        "τρίμηνο θα διευρύνουμε τη γκάμα και θα ξεκινήσουμε πρόγραμμα "
        "επιβράβευσης. Οι αναλυτικοί πίνακες ακολουθούν· στείλτε τις ερωτήσεις "
        "σας στο οικονομικό τμήμα. Ευχαριστούμε όλους!"
    ),
    "tr": (
        "Üçüncü çeyrek satış raporu. Gelirler geçen yıla göre yüzde on iki "
        "arttı. En büyük büyüme yeni mağazaların açıldığı İstanbul ve İzmir'de "
        "görüldü. Kargo maliyetleri düştü ve ortalama sepet tutarı yükseldi. "
        "Gelecek çeyrekte ürün yelpazesini genişletip bir sadakat programı "
        "başlatacağız. Ayrıntılı tablolar aşağıdadır; sorularınızı finans "
        "departmanına iletin. Herkese teşekkürler!"
    ),
    "uk": (
        "Звіт про продажі за третій квартал. Виручка зросла на дванадцять "
        "відсотків порівняно з минулим роком. Найбільше зростання відбулося в "
        "Києві та Львові, де відкрилися нові магазини. Витрати на доставку "
        "знизилися, а середній чек збільшився. У наступному кварталі ми "
        "плануємо розширити асортимент і запустити програму лояльності. "
        "Докладні таблиці наведено нижче; питання надсилайте до фінансового "
        "відділу. Дякуємо всім працівникам!"
    ),
    "he": (
        "דוח מכירות לרבעון השלישי. ההכנסות עלו בשנים עשר אחוזים לעומת השנה "
        "שעברה. הצמיחה הגדולה ביותר נרשמה בתל אביב ובחיפה, שם נפתחו חנויות "
        "חדשות. עלויות המשלוח ירדו וסכום הקנייה הממוצע עלה. ברבעון הבא נרחיב את "
        "המבחר ונשיק תוכנית נאמנות. הטבלאות המפורטות מופיעות למטה; שאלות יש "
        "להפנות למחלקת הכספים. תודה לכולם!"
    ),
    "ar": (
        "تقرير المبيعات للربع الثالث. ارتفعت الإيرادات بنسبة اثني عشر في المئة "
        "مقارنة بالعام الماضي. وسُجّل أكبر نمو في القاهرة والإسكندرية حيث "
        "افتُتحت متاجر جديدة. وانخفضت تكاليف الشحن وارتفع متوسط قيمة الشراء. "
        "وفي الربع القادم سنوسّع التشكيلة ونطلق برنامجاً للولاء. الجداول "
        "التفصيلية أدناه، ويرجى توجيه الأسئلة إلى القسم المالي. شكراً للجميع!"
    ),
    "lt": (
        "Trečiojo ketvirčio pardavimų ataskaita. Pajamos išaugo dvylika "
        "procentų, palyginti su praėjusiais metais. Didžiausias augimas "
        "užfiksuotas Vilniuje ir Kaune, kur atidarytos naujos parduotuvės. "
        "Pristatymo išlaidos sumažėjo, o vidutinė pirkinio vertė padidėjo. Kitą "
        "ketvirtį išplėsime asortimentą ir pradėsime lojalumo programą. "
        "Išsamios lentelės pateiktos žemiau; klausimus siųskite finansų "
        "skyriui. Ačiū visiems darbuotojams!"
    ),
}
"""Keyed by language tag: ru, uk, pl, cs, de, fr, es, el, tr, he, ar, lt."""

CODE_PAGES: tuple[tuple[str, str], ...] = (
    ("ru", "cp1251"),
    ("ru", "koi8_r"),
    ("uk", "cp1251"),
    ("uk", "koi8_u"),
    ("pl", "cp1250"),
    ("pl", "iso8859_2"),
    ("cs", "cp1250"),
    ("cs", "iso8859_2"),
    ("de", "cp1252"),
    ("fr", "cp1252"),
    ("es", "cp1252"),
    ("de", "iso8859_15"),
    ("el", "cp1253"),
    ("el", "iso8859_7"),
    ("tr", "cp1254"),
    ("tr", "iso8859_9"),
    ("he", "cp1255"),
    ("ar", "cp1256"),
    ("lt", "cp1257"),
    ("ru", "iso8859_5"),
    ("ru", "cp866"),
)
"""Each report in the code pages its language was written in."""
