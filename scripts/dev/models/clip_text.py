"""clip_text: transformers CLIPTextModel, tiny random config (hidden 32, 2 layers, 4 heads, vocab 100, causal mask, pooled output taken at argmax of the ids); returns pooler_output."""
import torch
import transformers


class Wrap(torch.nn.Module):
    def __init__(self):
        super().__init__()
        cfg = transformers.CLIPTextConfig(vocab_size=100, hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                                          num_attention_heads=4, max_position_embeddings=16, eos_token_id=2)
        self.m = transformers.CLIPTextModel(cfg)

    def forward(self, input_ids):
        return self.m(input_ids=input_ids).pooler_output


def make_model():
    torch.manual_seed(0)
    return Wrap().eval()


def example_inputs():
    g = torch.Generator().manual_seed(1)
    return (torch.randint(0, 100, (2, 8), generator=g),)
